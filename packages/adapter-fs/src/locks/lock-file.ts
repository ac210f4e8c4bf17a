import { linkSync, renameSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { hasCode, LockTimeoutError } from "../errors.js";
import { runInTurn } from "./key-queue.js";
import type { Lease, LockWrites } from "./lease.js";
import { keepLingering, releaseLingering, takeLingering } from "./lingering-locks.js";
import { LockBreaker } from "./lock-breaker.js";
import { LockDirectorySweeper } from "./lock-directory-sweeper.js";
import {
  createWhole,
  exists,
  isOwn,
  keptMark,
  type LockFileContent,
  newNonce,
  type OwnLock,
  openOwn,
  readLock,
  removeHoldingBreaker,
  sleep,
  wantedSince,
} from "./lock-file-primitives.js";
import { LockOwner } from "./lock-owner.js";
import type { LockSettings } from "./lock-settings.js";
import { removeIfPresent, removeTree, StagingArea } from "./staging-area.js";

/** Waiters poll this often at most, so a lock handed over is taken within a few milliseconds. */
const MAX_BACKOFF_MS = 4;
/** How often a release that found `.break` held for timeoutMs tries again, in the background. */
const RELEASE_RETRY_MS = 20;
/** How long a process that just released a lock others want stays away before taking it again. */
const HAND_OVER_MS = 8;
/** Locks whose last turn is remembered for handing over; older turns are forgotten past this many. */
const REMEMBERED_TURNS = 1024;

/** A lock this process holds, with the lease its tasks are given. */
interface Holding {
  readonly own: OwnLock;
  /** The holding's nonce, in its lock file and in its kept mark's name (`keptMark`). */
  readonly nonce: string;
  readonly lease: Lease;
  /** When it was taken: a `.wanted` touched since says another process asked for it. */
  readonly acquiredAt: number;
  /** A `"segment"` lock this process took at once, which `withLock`'s `linger` may keep for the next task. */
  readonly reusable: boolean;
}

/**
 * Mutual exclusion between processes through lock files: `link` puts a file written under another name in
 * place only if the path is free, atomically on every local file system, so a lock is never seen empty
 * (`createWhole`). The file holds the owner's pid, host, start time and a nonce. Inside one process, callers
 * queue per path first, so only one of them polls the file.
 *
 * Who may take a lock over: a lock whose owner process is gone (same host) is taken over at once; a pid
 * now owned by another process (a reused pid) is told apart by its start time. Owners refresh their lock
 * file's modification time every quarter of `staleMs` from a timer, so an owner that stopped running
 * (SIGSTOP, a debugger, a starved machine) stops refreshing it. Such an owner may resume in the middle of
 * its writes, so its lock, once unrefreshed for `staleMs`, is taken over with its late writes fenced off,
 * as what it declared it writes (`LockWrites`) says. The lock file is replaced in one rename, never removed
 * first, so no other contender slips in; then the breaker revokes the old owner's staging directory
 * (`revokeStaging`), so every rename it makes later fails (`LockLostError`: nothing landed). After a
 * `"segment"` or `"record"` owner the new lease says `tookOver`: its owner seals the head segment before
 * anything else (the old owner's positioned writes land past the sealed end, which no reader reads) and
 * rotates the history file (its late in-place event writes land in a file no reader opens). After a
 * `"state"` owner the new lease declares what its owner writes. Owners remove their lock under `.break`
 * when they are done, so that no breaker replaces a lock created after the one it judged. Where the owner
 * cannot be checked (another host, no /proc), a lock unrefreshed for `staleMs` is taken over the same way.
 * A `"references"` lock, or one that declares nothing (an earlier version's), is never taken over from a
 * live owner on this host: only from one known gone, or that cannot be checked and stopped refreshing it.
 *
 * Fairness: a process with many writes queued would otherwise take the lock again the moment it lets go,
 * and waiting processes, which poll, would rarely get in. So waiters touch `<lock>.wanted`, and a process
 * that sees it was touched while it held the lock steps back for a moment before taking the lock again.
 */
export class LockFiles {
  /** This process as the owner of its lock files: its host, start time and what it writes into them. */
  readonly #owner = new LockOwner();
  /** Judges other owners' locks and takes them over; takes `.break`. */
  readonly #breaker: LockBreaker;
  /** Sweeps lock directories of what dead processes left. */
  readonly #sweeper: LockDirectorySweeper;
  /** When this process last took each lock, to tell whether others asked for it since. */
  readonly #acquiredAt = new Map<string, number>();
  /** The locks this process holds, refreshed together by one timer (`#refreshAll`). */
  readonly #held = new Set<OwnLock>();
  #refresher: NodeJS.Timeout | undefined;
  /** Whether locks are kept past their tasks (`withLock`'s `linger`): until `close`. */
  #keeps = true;

  constructor(readonly settings: LockSettings) {
    this.#breaker = new LockBreaker(settings, this.#owner);
    this.#sweeper = new LockDirectorySweeper(settings, this.#owner.host, (owner) =>
      this.#breaker.isGone(owner),
    );
  }

  /**
   * Runs `task` holding the lock at `path`, declaring what it writes (`LockWrites`; `"references"` by
   * default, the one never taken over from a live owner on this host). With `linger`, a `"segment"` lock
   * this process took at once (not from another owner, not waited for) is kept after the task for the next
   * `"segment"` task on the path in this turn of the event loop (`keepLingering`): a loop of appends to one
   * thread takes and releases it once, not once per append.
   */
  async withLock<T>(
    path: string,
    task: (lease: Lease) => Promise<T>,
    options: { writes?: LockWrites; linger?: boolean } = {},
  ): Promise<T> {
    // The wait in this process's queue counts against timeoutMs too: no call waits without a bound.
    const wait = {
      timeoutMs: this.settings.timeoutMs,
      timedOut: (waitedMs: number) =>
        new LockTimeoutError(path, waitedMs, { pid: process.pid, hostname: this.#owner.host }),
    };
    const writes = options.writes ?? "references";
    return runInTurn(
      path,
      async (waitedMs) => {
        const holding = (await this.#reclaim(path, writes)) ?? (await this.#take(path, writes, waitedMs));
        let keep = false;
        try {
          const result = await task(holding.lease);
          keep = options.linger === true && holding.reusable && !holding.lease.staging.created && this.#keeps;
          return result;
        } finally {
          if (keep) await this.#keep(path, holding);
          else await this.#end(path, holding);
        }
      },
      wait,
    );
  }

  /** Takes the lock at `path` afresh (`#acquire`), holds it, and gives its lease. */
  async #take(path: string, writes: LockWrites, waitedMs: number): Promise<Holding> {
    if (writes === "state" || writes === "record") await this.#sweeper.sweep(dirname(path));
    await this.#sweeper.sweepUnlinked(dirname(path));
    const acquired = await this.#acquire(path, writes, waitedMs);
    const { own, tookOver } = acquired;
    this.#hold(own);
    const held = () => isOwn(path, own);
    const staging = new StagingArea(path, acquired.nonce, held);
    return {
      own,
      nonce: acquired.nonce,
      acquiredAt: Date.now(),
      lease: { writes: acquired.writes, tookOver, held, staging, carried: undefined },
      reusable: acquired.writes === "segment" && !tookOver && !acquired.contended,
    };
  }

  /** Lets go of a holding and releases its lock. */
  async #end(path: string, holding: Holding): Promise<void> {
    this.#letGo(holding.own);
    await this.#release(path, holding.own, holding.lease.staging);
  }

  /**
   * Keeps a holding past its task (`keepLingering`), still held and refreshed, and marked kept: its lock
   * file linked to `keptMark`, so that another process that asks for the lock takes it from this idle
   * holder at once (`#claimKept`), as from one that released it, even when this process stopped (SIGSTOP,
   * starved) before its next task. Released now when it cannot be marked.
   */
  async #keep(path: string, holding: Holding): Promise<void> {
    try {
      linkSync(holding.own.unlinked, keptMark(path, holding.nonce));
    } catch {
      await this.#end(path, holding);
      return;
    }
    keepLingering(path, {
      owner: this,
      holding,
      // Released as usual even when claimed: under \`.break\` and only while still this file, a no-op once
      // the claimer removed it, and the release a claimer that died or gave up before removing it needs.
      release: async () => {
        this.#unkeep(path, holding);
        await this.#end(path, holding);
      },
      releaseNow: () => {
        this.#unkeep(path, holding);
        this.#letGo(holding.own);
        this.#releaseNow(path, holding.own);
      },
    });
  }

  /**
   * Takes a kept holding back by removing its mark: false when another process claimed it meanwhile
   * (`#claimKept`, which removes the lock): the holding is over, and the caller releases it as usual.
   */
  #unkeep(path: string, holding: Holding): boolean {
    try {
      unlinkSync(keptMark(path, holding.nonce));
      return true;
    } catch (error) {
      if (hasCode(error, "ENOENT")) return false;
      // Whether it is still marked is unknown: no longer refreshed, the lock goes stale and is taken over.
      this.#letGo(holding.own);
      throw error;
    }
  }

  /**
   * Takes the lock at `path` from a holder that keeps it idle (`#keep`), as if it had released it: claims
   * its mark by renaming it (it or its holder's `#unkeep`, whichever comes first), then removes the lock
   * under `.break` like a release, if the lock is still the file the mark names. True when it claimed one.
   */
  async #claimKept(path: string, nonce: string): Promise<boolean> {
    // Named like an unlinked lock file: swept as one if this process dies holding it.
    const claimed = `${path}.${newNonce()}`;
    try {
      renameSync(keptMark(path, nonce), claimed);
    } catch (error) {
      if (hasCode(error, "ENOENT")) return false;
      throw error;
    }
    try {
      const status = statSync(claimed, { bigint: true });
      const touchedAt = Number(status.mtimeMs);
      // `.break` is taken under this process's name, not by linking the claimed file, which names its holder:
      // a holder that died would make this live claimer's `.break` look abandoned to a third process.
      const own = { device: status.dev, inode: status.ino, unlinked: claimed, touchedAt };
      await this.#removeLock(path, own, { linkOwn: false });
    } finally {
      removeIfPresent(claimed);
    }
    return true;
  }

  /**
   * The holding this process kept at `path` (`#keep`), when it can serve a `writes` task: this instance's, a
   * `"segment"` lock for a `"segment"` task, no other process asked for the lock since it was taken
   * (`.wanted`: it is released and asked for again, handing over as after any release), and still this
   * process's (a takeover of a stopped process replaced it). Any other kept lock is released first.
   */
  async #reclaim(path: string, writes: LockWrites): Promise<Holding | undefined> {
    const kept = takeLingering(path);
    if (!kept) return undefined;
    if (kept.owner !== this) {
      await kept.release();
      return undefined;
    }
    const holding = kept.holding as Holding;
    if (!this.#unkeep(path, holding)) {
      await this.#end(path, holding);
      return undefined;
    }
    const reusable =
      writes === "segment" && this.#keeps && !wantedSince(path, holding.acquiredAt) && holding.lease.held();
    if (reusable) return holding;
    await this.#end(path, holding);
    return undefined;
  }

  /** Stops keeping locks past their tasks and releases the ones kept (a store closing). */
  async close(): Promise<void> {
    this.#keeps = false;
    await releaseLingering(this);
  }

  /** Takes the lock file; `queuedMs` is how long the caller already waited in this process's queue. */
  async #acquire(
    path: string,
    writes: LockWrites,
    queuedMs: number,
  ): Promise<{ nonce: string; writes: LockWrites; tookOver: boolean; own: OwnLock; contended: boolean }> {
    const nonce = newNonce();
    const started = Date.now() - queuedMs;
    await this.#handOver(path);
    for (let attempt = 0; ; attempt++) {
      let taken: { writes: LockWrites; tookOver: boolean; own: OwnLock } | undefined;
      let holder: LockFileContent | undefined;
      const created = await this.#tryCreate(path, nonce, writes);
      if (created) taken = { writes, tookOver: false, own: created };
      else {
        await writeFile(`${path}.wanted`, "");
        holder = await readLock(path);
        // A lock its holder keeps idle between two tasks (`#keep`) is taken from it at once.
        if (holder?.nonce !== undefined && (await this.#claimKept(path, holder.nonce))) {
          if (Date.now() - started < this.settings.timeoutMs) continue;
          throw new LockTimeoutError(path, Date.now() - started, holder);
        }
        const verdict = holder && (await this.#breaker.verdict(holder));
        const broken =
          holder && verdict !== "held" ? await this.#breaker.breakLock(path, holder, nonce, writes) : "busy";
        // Taken over by a rename: given a second name like a lock this process created (a lock that is no
        // longer this nonce's was taken over again meanwhile, and is contended for again).
        const own = typeof broken === "object" ? openOwn(path, nonce) : undefined;
        if (typeof broken === "object" && own) taken = { ...broken, own };
        else if ((broken === "removed" || own === null) && Date.now() - started < this.settings.timeoutMs)
          continue;
      }
      if (taken) {
        if (this.#acquiredAt.size >= REMEMBERED_TURNS) this.#acquiredAt.clear();
        this.#acquiredAt.set(path, Date.now());
        if (attempt > 0) await rm(`${path}.wanted`, { force: true });
        return { nonce, ...taken, contended: attempt > 0 || !created };
      }
      const waited = Date.now() - started;
      if (waited >= this.settings.timeoutMs) throw new LockTimeoutError(path, waited, holder);
      await sleep(Math.min(2 ** attempt, MAX_BACKOFF_MS) * (0.5 + Math.random()));
    }
  }

  /** Steps back while another process that asked for the lock during our last turn takes it. */
  async #handOver(path: string): Promise<void> {
    const acquiredAt = this.#acquiredAt.get(path);
    if (acquiredAt === undefined) return;
    this.#acquiredAt.delete(path);
    if (!wantedSince(path, acquiredAt)) return;
    const until = Date.now() + HAND_OVER_MS;
    while (Date.now() < until && !(await exists(path))) await sleep(1);
  }

  /**
   * Creates the lock file if it is absent, whole: its content is written to `<lock>.<nonce>` first and then
   * linked into place (EEXIST: taken), so a lock file is never seen empty. An owner stopped between creating
   * the file and writing it used to leave an empty lock that contenders removed as abandoned after
   * UNWRITTEN_LOCK_MS while the owner lived; now such an owner holds nothing (its unlinked file is swept once
   * it is gone, `LockDirectorySweeper.sweepUnlinked`). A lock file is a few bytes in a directory the page
   * cache holds, so this is done at once, without thread-pool round trips on every commit. The name it was
   * written under stays while the lock is held (`OwnLock`).
   */
  async #tryCreate(path: string, nonce: string, writes: LockWrites): Promise<OwnLock | undefined> {
    return createWhole(path, nonce, await this.#owner.content(nonce, writes));
  }

  /** Holds `own` (`#held`), refreshed every quarter of staleMs while held. */
  #hold(own: OwnLock): void {
    this.#held.add(own);
    if (this.#refresher) return;
    this.#refresher = setInterval(
      () => this.#refreshAll(),
      Math.max(10, Math.floor(this.settings.staleMs / 4)),
    );
    this.#refresher.unref();
  }

  #letGo(own: OwnLock): void {
    this.#held.delete(own);
    if (this.#held.size > 0 || !this.#refresher) return;
    clearInterval(this.#refresher);
    this.#refresher = undefined;
  }

  /**
   * Marks every held lock alive by its modification time, through the name it was written under (the
   * same file): one timer for all of them rather than one per lock. A lock taken over meanwhile is no
   * longer at the lock path, so touching it touches nothing any other process judges.
   */
  #refreshAll(): void {
    const now = new Date();
    for (const own of this.#held) {
      try {
        utimesSync(own.unlinked, now, now);
        own.touchedAt = now.getTime();
      } catch {
        // Refreshed again at the next tick.
      }
    }
  }

  async #release(path: string, own: OwnLock, staging: StagingArea): Promise<void> {
    await this.#releaseLock(path, own);
    // This holding's staging directory, if it made one: nothing of this holding writes through it again.
    if (staging.created) removeTree(staging.path);
  }

  async #releaseLock(path: string, own: OwnLock): Promise<void> {
    let removed = true;
    try {
      removed = await this.#removeLock(path, own);
    } finally {
      // Kept while the release goes on later: `isOwn` needs this name to tell the lock is still this one.
      if (removed) removeIfPresent(own.unlinked);
    }
    if (!removed) void this.#releaseLater(path, own);
  }

  /**
   * Goes on with a release that could not take `.break` within timeoutMs (its holder, another releaser or
   * a breaker, stopped while it held it), off the caller's way, until `.break` is free. Left in place, a
   * `"references"` lock of this live process would block every other writer for as long as this process
   * lives, long after the stopped holder resumed: it is never taken over from a live owner on this host.
   * A thread's lock taken over meanwhile (it went stale) is no longer this one and is left to its taker.
   */
  async #releaseLater(path: string, own: OwnLock): Promise<void> {
    const breaker = `${path}.break`;
    try {
      while (!(this.#breaker.takeBreakerNow(breaker, own) || (await this.#breaker.takeBreaker(breaker)))) {
        if (!isOwn(path, own)) return;
        // Unreferenced: a process that ends meanwhile leaves a dead owner's lock, which is taken at once.
        await new Promise((resolve) => setTimeout(resolve, RELEASE_RETRY_MS).unref());
      }
      removeHoldingBreaker(path, own, breaker);
    } catch {
      // As before this retry: the lock is left to go stale (or, its process gone, to be taken at once).
    } finally {
      removeIfPresent(own.unlinked);
    }
  }

  /** Removes the lock under `.break`; false when `.break` stayed held for timeoutMs and the lock is still there. */
  async #removeLock(path: string, own: OwnLock, options: { linkOwn?: boolean } = {}): Promise<boolean> {
    // Every lock is removed under `.break`, like a takeover: a breaker that judged it would otherwise
    // replace (or, judging it gone, remove), once it is gone, the lock a third process just created. A lock
    // taken over belongs to its new owner now: checked (`isOwn`) and removed at once, like its creation.
    const breaker = `${path}.break`;
    const until = Date.now() + this.settings.timeoutMs;
    for (;;) {
      // Usually free: taken at once, without the thread-pool round trips of a contender's way.
      if (options.linkOwn !== false && this.#breaker.takeBreakerNow(breaker, own)) break;
      // Held by a breaker or by another releaser of this lock path, which let go of it in a few system calls;
      // one that is gone is removed (`LockBreaker.takeBreaker`). Never removed without `.break`: a releaser
      // that did so while another's `.break` stayed could be stopped between its check and its unlink, and
      // unlink, once that `.break` is gone, the lock a breaker gave to a third process.
      if (await this.#breaker.takeBreaker(breaker)) break;
      // One that stays (stopped): the caller goes on, and the lock is released later (`#releaseLater`).
      if (Date.now() >= until) return false;
      await sleep(1);
    }
    removeHoldingBreaker(path, own, breaker);
    return true;
  }

  /** `#releaseLock` without waiting: when `.break` is busy, the lock is left to go stale (an exiting process's). */
  #releaseNow(path: string, own: OwnLock): void {
    try {
      const breaker = `${path}.break`;
      if (this.#breaker.takeBreakerNow(breaker, own)) removeHoldingBreaker(path, own, breaker);
    } finally {
      removeIfPresent(own.unlinked);
    }
  }
}

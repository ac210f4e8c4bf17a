import { randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { hasCode, type LockHolder, LockTimeoutError } from "./errors.js";
import { runInTurn } from "./key-queue.js";
import { keepLingering, releaseLingering, takeLingering } from "./lingering-locks.js";
import {
  removeIfPresent,
  removeTree,
  revokeStaging,
  StagingArea,
  type StagingOwner,
  stagingPath,
  sweepStaging,
} from "./staging-area.js";

export interface LockSettings {
  /** How long to wait for a lock before `LockTimeoutError`. */
  timeoutMs: number;
  /**
   * A lock its owner has not refreshed for this long is taken over, its owner's late writes fenced off,
   * whether the owner stopped running (frozen, starved) or cannot be checked (another host): owners
   * refresh their locks every quarter of it while they hold them. See the class comment.
   */
  staleMs: number;
}

/**
 * What the owner of a thread's lock may write, which says how a takeover fences its late writes off:
 * `"segment"`, only positioned writes into the thread's head segment (a plain append), fenced off by
 * sealing that segment; `"state"`, only a state record replaced or removed by a rename through the lock's
 * staging directory (`StagingArea`), fenced off by revoking that directory (`revokeStaging`); `"record"`,
 * anything else: a local thread's record and history renamed through the staging directory (revoked),
 * guarded entries or a new head in segments (the head sealed), events appended in place to its history
 * file (checked against the lock after the file is opened; the taker rotates the file, see
 * `RecordFiles.rotateEvents`), and segments made, referenced or released under the references lock
 * (which is never taken over from a live owner on this host: see the README's Limits); `"references"`,
 * the references lock's: nothing fences its owner's writes, so it is never taken over from a live owner on
 * this host (nor is a lock that declares nothing, an earlier version's).
 */
export type LockWrites = "segment" | "state" | "record" | "references";

/** The lock a task runs under (`withLock`). */
export interface Lease {
  /** What the lock file declares this owner may write. */
  readonly writes: LockWrites;
  /**
   * The lock was taken over from an owner that may still run (stopped or starved, appending into the
   * thread's head): the new owner must seal that head before it writes anything (see `head-takeover.ts`).
   * Such a lock always declares `"record"`.
   */
  readonly tookOver: boolean;
  /** Whether the lock file is still this lease's, read at once: false once another process took it over. */
  held(): boolean;
  /** Where the lease stages the renames a takeover must fence off (see `StagingArea`); made when first used. */
  readonly staging: StagingArea;
  /**
   * What the last task on this holding of the lock left for the next one, which `withLock`'s `linger` may
   * give the same holding (undefined on a new holding): facts about files only a holder of the lock writes,
   * true when that task ended, so still true while the lock stays this holding's (`held`).
   */
  carried: unknown;
}

interface LockFileContent extends LockHolder {
  nonce?: string;
  /** Absent in locks written by older versions: such a lock is never taken over from a live owner. */
  writes?: LockWrites;
  /** When the owner process started (Linux), telling the owner from a later process given the same pid. */
  started?: string;
  /**
   * The lock was taken over from an owner that may still run, and its owner must seal and rotate before it
   * writes (`Lease.tookOver`): if it dies, whoever takes the lock next does that in its place.
   */
  fencing?: boolean;
  /**
   * A breaker's `.break` file (`#takeBreaker`), where a releaser's is its own lock file linked there: for
   * people reading the directory; every `.break` is waited for alike.
   */
  breaking?: boolean;
  /** How long since the owner last refreshed the lock file (its modification time). */
  ageMs: number;
}

/** A lock file whose content is still unreadable after this long was left by a writer that died creating it. */
const UNWRITTEN_LOCK_MS = 1000;
/** Breaking a stale lock takes a few system calls; a breaker file older than this belongs to a dead breaker. */
const STALE_BREAKER_MS = 2000;
/** Waiters poll this often at most, so a lock handed over is taken within a few milliseconds. */
const MAX_BACKOFF_MS = 4;
/** How long a process that just released a lock others want stays away before taking it again. */
const HAND_OVER_MS = 8;
/** Locks whose last turn is remembered for handing over; older turns are forgotten past this many. */
const REMEMBERED_TURNS = 1024;
/** Lock directories swept of staging leftovers by this process; forgotten (and swept again) past this many. */
const SWEPT_DIRECTORIES = 64;
/**
 * A lock directory is swept again this many staleMs after its last sweep (5 minutes by default): a server
 * runs for months, and peers that die meanwhile leave their files behind.
 */
const SWEEP_AGAIN_FACTOR = 60;
/**
 * `<lock>.<nonce>`: a lock's content written before it is linked into place (`#tryCreate`), or a breaker's
 * replacement before its rename; `<lock>.<nonce>.kept`, the mark of a lock kept idle (`keptMark`). One left
 * by a process that died in between is swept (`#sweepUnlinked`).
 */
const UNLINKED_NAME = /\.lock(\.break)?\.[0-9a-f]{24}(\.kept)?$/;
/** An unlinked lock file whose owner cannot be checked (another host) is swept once this many staleMs old. */
const UNLINKED_STALE_FACTOR = 10;
/** Nonces are a random prefix drawn once per process and a counter: unique without a random draw per lock. */
const NONCE_PREFIX = randomBytes(6).toString("hex");
let nonces = 0;

/**
 * A lock file this process created or took over, while it holds the lock. The file keeps a second name,
 * `<lock>.<nonce>` (the one it was written under, `unlinked`), until the lock is let go: the file then
 * lives, and no other file can be given its inode number, as long as that name names it. So whether the
 * lock path still names this file is two `stat`s compared with it (`isOwn`), where the lock's content was
 * read back and parsed before; no file stays open (a server writing thousands of threads at once holds
 * that many locks). The release links that name to `.break` (`#takeBreakerNow`), and the refresh sets its
 * modification time through it.
 */
interface OwnLock {
  readonly device: bigint;
  readonly inode: bigint;
  readonly unlinked: string;
  /** When its modification time was last set (created or refreshed). */
  touchedAt: number;
}

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
  readonly #host = hostname();
  /** This process's start time, written into its locks. */
  readonly #started = processStart(process.pid);
  /** `#started` once known (every lock this process releases was acquired after it was). */
  #startedNow: string | undefined;
  /** What this process writes into a `.break` file it takes to release a lock. */
  #breakerContent: string | undefined;
  /** When this process last took each lock, to tell whether others asked for it since. */
  readonly #acquiredAt = new Map<string, number>();
  /** Lock directories this process swept of staging leftovers (`sweepStaging`), once each. */
  readonly #swept = new Map<string, number>();
  /** Lock directories this process swept of unlinked lock files (`#sweepUnlinked`), once each. */
  readonly #sweptUnlinked = new Map<string, number>();
  /** The locks this process holds, refreshed together by one timer (`#refreshAll`). */
  readonly #held = new Set<OwnLock>();
  #refresher: NodeJS.Timeout | undefined;
  /** Whether locks are kept past their tasks (`withLock`'s `linger`): until `close`. */
  #keeps = true;

  constructor(readonly settings: LockSettings) {}

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
        new LockTimeoutError(path, waitedMs, { pid: process.pid, hostname: this.#host }),
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
    if (writes === "state" || writes === "record") await this.#sweep(dirname(path));
    await this.#sweepUnlinked(dirname(path));
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
        const verdict = holder && (await this.#verdict(holder));
        const broken =
          holder && verdict !== "held" ? await this.#breakLock(path, holder, nonce, writes) : "busy";
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
   * UNWRITTEN_LOCK_MS while the owner lived; now such an owner holds nothing (its unlinked file is swept
   * once it is gone, `#sweepUnlinked`). A lock file is a few bytes in a directory the page cache holds, so
   * this is done at once, without thread-pool round trips on every commit. The name it was written under
   * stays while the lock is held (`OwnLock`).
   */
  async #tryCreate(path: string, nonce: string, writes: LockWrites): Promise<OwnLock | undefined> {
    return createWhole(path, nonce, await this.#content(nonce, writes));
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

  /** A lock file's content; `mark` says a taker that must still fence, or a breaker's `.break` file. */
  async #content(nonce: string, writes: LockWrites, mark?: "fencing" | "breaking"): Promise<string> {
    const started = await this.#started;
    this.#startedNow = started;
    const content: Omit<LockFileContent, "ageMs"> = {
      pid: process.pid,
      hostname: this.#host,
      nonce,
      writes,
      acquiredAt: new Date().toISOString(),
      ...(started === undefined ? {} : { started }),
      ...(mark === undefined ? {} : { [mark]: true }),
    };
    return JSON.stringify(content);
  }

  /**
   * Whether a thread's lock may be taken over (see the class comment): `"gone"`, its owner cannot run again
   * (or cannot be checked, stopped refreshing it, and declared no writes a takeover fences); `"stopped"`,
   * its owner lives (or cannot be checked) but stopped refreshing a lock whose writes a takeover fences;
   * `"held"`, it may not.
   */
  async #verdict(holder: LockFileContent): Promise<"gone" | "stopped" | "held"> {
    const fenceable = holder.writes === "segment" || holder.writes === "state" || holder.writes === "record";
    if (await this.#isAbandoned(holder, this.settings.staleMs)) {
      // An owner that cannot be checked (another host or container, no /proc) may still be running and
      // resume: one whose writes can be fenced is fenced, as a stopped one is, unless it is known gone.
      return fenceable && !(await this.#isKnownGone(holder)) ? "stopped" : "gone";
    }
    const stopped = fenceable && holder.ageMs > this.settings.staleMs;
    return stopped && holder.hostname === this.#host ? "stopped" : "held";
  }

  /** Whether the lock's owner is known to be gone: on this host, its pid dead or now another process's. */
  async #isKnownGone(holder: LockFileContent): Promise<boolean> {
    if (holder.pid === undefined || holder.hostname !== this.#host) return false;
    if (!isProcessAlive(holder.pid)) return true;
    if (holder.started === undefined) return false;
    const started = await processStart(holder.pid);
    return started !== undefined && started !== holder.started;
  }

  /** Whether the lock's owner is gone or cannot be checked and stopped refreshing it. */
  async #isAbandoned(holder: LockFileContent, staleMs: number): Promise<boolean> {
    if (holder.pid !== undefined && holder.hostname === this.#host && holder.started !== undefined) {
      if (!isProcessAlive(holder.pid)) return true;
      const started = await processStart(holder.pid);
      if (started !== undefined) return started !== holder.started;
    }
    return this.#isStale(holder, staleMs);
  }

  #isStale(holder: LockFileContent, staleMs: number): boolean {
    if (holder.pid === undefined) return holder.ageMs > Math.min(UNWRITTEN_LOCK_MS, staleMs);
    if (holder.hostname === this.#host && !isProcessAlive(holder.pid)) return true;
    return holder.ageMs > staleMs;
  }

  /**
   * Takes a lock over. Contenders take a second lock (`.break`) first, and act only if the lock is still
   * the one they judged (same nonce, judged again), so two of them never break a lock that a third just
   * took. A lock whose owner is gone is removed (`"removed"`: the caller competes for it again). A lock
   * whose owner may still run is replaced by this process's own in one rename (taken over): removing it
   * first would let a contender that does not know the owner may still run take it and write before the
   * old owner's writes were fenced off. Either way the old owner's staging path is revoked after (`revokeOwner`),
   * once its `held()` is false. The new lock declares `"record"`, and says `tookOver`, when the old owner
   * appended or rewrote the record (its head must be sealed and its history rotated first); after a
   * `"state"` owner it declares what this process writes. `"busy"`: another contender is at it, or the
   * lock changed. A breaker held by a live process on this host is never broken: one stopped between its
   * check and its rename would otherwise resume and replace the lock a second breaker gave to a third owner.
   */
  async #breakLock(
    path: string,
    judged: LockFileContent,
    nonce: string,
    writes: LockWrites,
  ): Promise<"removed" | { writes: LockWrites; tookOver: boolean } | "busy"> {
    const breaker = `${path}.break`;
    if (!(await this.#takeBreaker(breaker))) return "busy";
    let outcome: "removed" | { writes: LockWrites; tookOver: boolean } | "busy";
    try {
      outcome = await this.#breakHeld(path, judged, nonce, writes);
    } finally {
      await rm(breaker, { force: true });
    }
    // A takeover also sweeps the directory (takeovers are rare), before this process writes anything as
    // the new owner: that unlinks the old owner's staged files (`StagingArea.stage`: the fence of its
    // renames out of locks/), and revokes the staging path of an owner whose breaker died between replacing
    // its lock and revoking it (its lock is held under another nonce now). Outside `.break`: a directory
    // read that outlasts STALE_BREAKER_MS could let a breaker on another host take `.break` for stale.
    if (outcome !== "busy") await sweepStaging(dirname(path), (other) => this.#isGone(other));
    return outcome;
  }

  /** `#breakLock`'s work, holding `.break`. */
  async #breakHeld(
    path: string,
    judged: LockFileContent,
    nonce: string,
    writes: LockWrites,
  ): Promise<"removed" | { writes: LockWrites; tookOver: boolean } | "busy"> {
    const current = await readLock(path);
    if (!current || current.nonce !== judged.nonce || current.pid !== judged.pid) return "busy";
    const verdict = await this.#verdict(current);
    if (verdict === "held") return "busy";
    // A dead owner that took the lock over may have died before it sealed the head and rotated the
    // history: the owner it took the lock from may still run, so the lock is taken over as from it.
    if (verdict === "gone" && !current.fencing) {
      await rm(path, { force: true });
      revokeOwner(path, current);
      return "removed";
    }
    const taken =
      current.writes === "state"
        ? { writes, tookOver: false }
        : { writes: "record" as const, tookOver: true };
    // Every taker's lock says `fencing`, a state writer's taker's too: it unlinks the old owner's staged
    // files only in its sweep, after `.break` is let go, so a taker that dies before the sweep ends must
    // have its lock replaced (and the sweep made again) by the next writer, never removed, which would let
    // a third writer take the lock and read before the old owner's staged rename is fenced off.
    const replacement = `${path}.${nonce}`;
    writeFileSync(replacement, await this.#content(nonce, taken.writes, "fencing"));
    try {
      renameSync(replacement, path);
    } catch (error) {
      // Swept while this breaker was stopped before its rename (`#sweepUnlinked`): nothing was replaced.
      if (hasCode(error, "ENOENT")) return "busy";
      removeIfPresent(replacement);
      throw error;
    }
    // If this throws, the lock just put in place is left, unrefreshed: it goes stale and is taken over
    // as this one was, fenced again (it says what its taker owes), never removed unfenced.
    revokeOwner(path, current);
    return taken;
  }

  /** Whether a tombstone's owner is known to be gone: on this host, with no process of its pid and start time. */
  async #isGone(owner: StagingOwner): Promise<boolean> {
    if (owner.pid === undefined || owner.hostname !== this.#host || owner.started === undefined) return false;
    if (!isProcessAlive(owner.pid)) return true;
    const started = await processStart(owner.pid);
    return started !== undefined && started !== owner.started;
  }

  /** Sweeps a lock directory of staging leftovers (`sweepStaging`), when this process first uses it and again every SWEEP_AGAIN_FACTOR × staleMs. */
  /** Whether `directory` is due a sweep (never swept, or not for SWEEP_AGAIN_FACTOR × staleMs); notes it. */
  #sweepDue(swept: Map<string, number>, directory: string): boolean {
    const now = Date.now();
    const last = swept.get(directory);
    if (last !== undefined && now - last < SWEEP_AGAIN_FACTOR * this.settings.staleMs) return false;
    if (swept.size >= SWEPT_DIRECTORIES) swept.clear();
    swept.set(directory, now);
    return true;
  }

  async #sweep(directory: string): Promise<void> {
    if (!this.#sweepDue(this.#swept, directory)) return;
    await sweepStaging(directory, (owner) => this.#isGone(owner));
  }

  /**
   * Removes the unlinked lock files (`createWhole`'s `<lock>.<nonce>`, a breaker's replacement) that
   * processes left when they died before linking or renaming them, when this process first uses a lock
   * directory (and again every SWEEP_AGAIN_FACTOR × staleMs): those whose owner is gone (`#isGone`), and those whose owner cannot be checked (another
   * host, no /proc, nothing written yet) once UNLINKED_STALE_FACTOR × staleMs old. An owner that can be
   * checked is never judged by age: a holder keeps this name while it holds its lock (`OwnLock`) and
   * refreshes it by its own staleMs, which may be longer than this process's. Removing one under a creator
   * that still runs is safe: it holds no lock through it, and writes it again or finds the lock busy.
   */
  async #sweepUnlinked(directory: string): Promise<void> {
    if (!this.#sweepDue(this.#sweptUnlinked, directory)) return;
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if (hasCode(error, "ENOENT")) return;
      throw error;
    }
    for (const name of names) {
      if (!UNLINKED_NAME.test(name)) continue;
      const path = join(directory, name);
      const holder = await readLock(path);
      if (!holder) continue;
      const owner: StagingOwner = { pid: holder.pid, hostname: holder.hostname, started: holder.started };
      const checkable =
        owner.pid !== undefined && owner.hostname === this.#host && owner.started !== undefined;
      const stale = !checkable && holder.ageMs > UNLINKED_STALE_FACTOR * this.settings.staleMs;
      if (stale || (await this.#isGone(owner))) await rm(path, { force: true });
    }
  }

  /** Creates the `.break` file; false when another process holds it (one that is gone loses it). */
  async #takeBreaker(breaker: string): Promise<boolean> {
    const nonce = newNonce();
    const own = createWhole(breaker, nonce, await this.#content(nonce, "references", "breaking"));
    if (own) {
      removeIfPresent(own.unlinked);
      return true;
    }
    const holder = await readLock(breaker);
    if (holder && (await this.#isAbandoned(holder, STALE_BREAKER_MS))) await rm(breaker, { force: true });
    return false;
  }

  /**
   * Creates the `.break` file at once, whole; false if it exists. Usually by linking the lock's own file
   * there (`OwnLock.unlinked`): its content names this process and what it writes; no file is created. Its
   * modification time is the lock's last refresh, set again here when older than a quarter of
   * STALE_BREAKER_MS so that no one takes the `.break` for stale. Else a file of its own
   * (`createWhole`) with this process's pid, host and start time.
   */
  #takeBreakerNow(breaker: string, own: OwnLock): boolean {
    try {
      if (Date.now() - own.touchedAt > STALE_BREAKER_MS / 4) {
        const now = new Date();
        utimesSync(own.unlinked, now, now);
        own.touchedAt = now.getTime();
      }
      linkSync(own.unlinked, breaker);
      return true;
    } catch (error) {
      if (hasCode(error, "EEXIST")) return false;
      // Its unlinked name was swept (its owner judged gone while stopped): a file of its own, then.
      if (!hasCode(error, "ENOENT")) throw error;
    }
    const started = this.#startedNow;
    this.#breakerContent ??= JSON.stringify({
      pid: process.pid,
      hostname: this.#host,
      nonce: randomBytes(12).toString("hex"),
      writes: "record",
      releasing: true,
      ...(started === undefined ? {} : { started }),
    });
    const created = createWhole(breaker, newNonce(), this.#breakerContent);
    if (created) removeIfPresent(created.unlinked);
    return created !== undefined;
  }

  async #release(path: string, own: OwnLock, staging: StagingArea): Promise<void> {
    await this.#releaseLock(path, own);
    // This holding's staging directory, if it made one: nothing of this holding writes through it again.
    if (staging.created) removeTree(staging.path);
  }

  async #releaseLock(path: string, own: OwnLock): Promise<void> {
    try {
      await this.#removeLock(path, own);
    } finally {
      removeIfPresent(own.unlinked);
    }
  }

  async #removeLock(path: string, own: OwnLock, options: { linkOwn?: boolean } = {}): Promise<void> {
    // Every lock is removed under `.break`, like a takeover: a breaker that judged it would otherwise
    // replace (or, judging it gone, remove), once it is gone, the lock a third process just created. A lock
    // taken over belongs to its new owner now: checked (`isOwn`) and removed at once, like its creation.
    const breaker = `${path}.break`;
    const until = Date.now() + this.settings.timeoutMs;
    for (;;) {
      // Usually free: taken at once, without the thread-pool round trips of a contender's way.
      if (options.linkOwn !== false && this.#takeBreakerNow(breaker, own)) break;
      // Held by a breaker or by another releaser of this lock path, which let go of it in a few system
      // calls; one that is gone is removed (`#takeBreaker`). Never removed without `.break`: a releaser that
      // did so while another's `.break` stayed could be stopped between its check and its unlink, and
      // unlink, once that `.break` is gone, the lock a breaker gave to a third process.
      if (await this.#takeBreaker(breaker)) break;
      // One that stays (stopped) leaves this lock to go stale and be taken over.
      if (Date.now() >= until) return;
      await sleep(1);
    }
    removeHoldingBreaker(path, own, breaker);
  }

  /** `#releaseLock` without waiting: when `.break` is busy, the lock is left to go stale (an exiting process's). */
  #releaseNow(path: string, own: OwnLock): void {
    try {
      const breaker = `${path}.break`;
      if (this.#takeBreakerNow(breaker, own)) removeHoldingBreaker(path, own, breaker);
    } finally {
      removeIfPresent(own.unlinked);
    }
  }
}

/** Removes the lock at `path` if it is still `own`, then `.break`, which the caller holds. */
function removeHoldingBreaker(path: string, own: OwnLock, breaker: string): void {
  try {
    if (isOwn(path, own)) removeIfPresent(path);
  } finally {
    removeIfPresent(breaker);
  }
}

/** The mark of a lock kept idle by its holder (`LockFiles.#keep`): its lock file's third name while kept. */
function keptMark(path: string, nonce: string): string {
  return `${path}.${nonce}.kept`;
}

function newNonce(): string {
  return NONCE_PREFIX + (nonces++).toString(16).padStart(12, "0");
}

/**
 * Creates the file at `path` with `content` if it is absent, whole: written to `<path>.<nonce>` first and
 * linked into place (undefined, EEXIST: taken). The first name stays (`OwnLock.unlinked`): the caller
 * removes it.
 */
function createWhole(path: string, nonce: string, content: string): OwnLock | undefined {
  const unlinked = `${path}.${nonce}`;
  for (let attempt = 0; ; attempt++) {
    const descriptor = openSync(unlinked, "wx");
    let own: OwnLock;
    try {
      writeSync(descriptor, content);
      const status = fstatSync(descriptor, { bigint: true });
      own = { device: status.dev, inode: status.ino, unlinked, touchedAt: Date.now() };
    } catch (error) {
      closeSync(descriptor);
      removeIfPresent(unlinked);
      throw error;
    }
    closeSync(descriptor);
    try {
      linkSync(unlinked, path);
      return own;
    } catch (error) {
      removeIfPresent(unlinked);
      if (hasCode(error, "EEXIST")) return undefined;
      // Swept while this process was stopped between writing and linking it (judged gone, or long
      // stopped on another host): written again, once.
      if (hasCode(error, "ENOENT") && attempt === 0) continue;
      throw error;
    }
  }
}

/**
 * Whether the lock path still names `own`'s file: it names a file with its inode number, and the name
 * `own` was written under still names that file too, so it is alive and its number is no other file's
 * (see `OwnLock`). No one else ever makes a file under that name (its nonce is this holding's).
 */
function isOwn(path: string, own: OwnLock): boolean {
  const status = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (status === undefined || status.ino !== own.inode || status.dev !== own.device) return false;
  const kept = statSync(own.unlinked, { bigint: true, throwIfNoEntry: false });
  return kept !== undefined && kept.ino === own.inode && kept.dev === own.device;
}

/**
 * The lock at `path` after a takeover renamed it into place, given a second name (`OwnLock.unlinked`) to be
 * held by; null when it is not this `nonce`'s any more (taken over again meanwhile).
 */
function openOwn(path: string, nonce: string): OwnLock | null {
  const unlinked = `${path}.${nonce}`;
  try {
    linkSync(path, unlinked);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return null;
    throw error;
  }
  // Read through the new name: the file it names now stays put, whatever happens at the lock path.
  try {
    const content = JSON.parse(readFileSync(unlinked, "utf8")) as { nonce?: string };
    if (content.nonce === nonce) {
      const status = statSync(unlinked, { bigint: true });
      return { device: status.dev, inode: status.ino, unlinked, touchedAt: Number(status.mtimeMs) };
    }
  } catch {
    // Unreadable: not this nonce's.
  }
  removeIfPresent(unlinked);
  return null;
}

/**
 * When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined where
 * there is no /proc or no such process. The command name (field 2) may hold spaces and parentheses, so
 * fields are counted after its closing parenthesis.
 */
async function processStart(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Revokes the staging path of the owner of a lock this process just replaced or removed (`revokeStaging`). */
function revokeOwner(path: string, holder: LockFileContent): void {
  if (holder.nonce !== undefined) revokeStaging(stagingPath(path, holder.nonce));
}

/** The lock's content, or undefined when there is no lock file. */
async function readLock(path: string): Promise<LockFileContent | undefined> {
  try {
    const [text, status] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    const ageMs = Date.now() - status.mtimeMs;
    try {
      const parsed = JSON.parse(text) as LockFileContent;
      if (typeof parsed.pid === "number") return { ...parsed, ageMs };
    } catch {
      // Created but not written yet, or its writer died in between: judged by age alone.
    }
    return { ageMs };
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined;
    throw error;
  }
}

/** Whether `<path>.wanted` was touched at or after `since` (another process asked for the lock). */
function wantedSince(path: string, since: number): boolean {
  // Usually absent: asked without the cost of an exception.
  const wantedAt = statSync(`${path}.wanted`, { throwIfNoEntry: false })?.mtimeMs;
  return wantedAt !== undefined && wantedAt >= since;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return false;
    throw error;
  }
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Whether a process with this pid exists on this host (`EPERM`: it exists but is another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return hasCode(error, "EPERM");
  }
}

import { linkSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { hasCode } from "../errors.js";
import type { LockWrites } from "./lease.js";
import {
  createWhole,
  isProcessAlive,
  type LockFileContent,
  newNonce,
  type OwnLock,
  processStart,
  readLock,
  revokeOwner,
} from "./lock-file-primitives.js";
import type { LockOwner } from "./lock-owner.js";
import type { LockSettings } from "./lock-settings.js";
import { removeIfPresent, type StagingOwner, sweepStaging } from "./staging-area.js";

/** A lock file whose content is still unreadable after this long was left by a writer that died creating it. */
const UNWRITTEN_LOCK_MS = 1000;
/** Breaking a stale lock takes a few system calls; a breaker file older than this belongs to a dead breaker. */
const STALE_BREAKER_MS = 2000;

/**
 * Judges another owner's lock and takes it over (see `LockFiles`' class comment for who may take a lock
 * over), and takes the `.break` file every takeover and every release is made under.
 */
export class LockBreaker {
  readonly #settings: LockSettings;
  readonly #owner: LockOwner;

  constructor(settings: LockSettings, owner: LockOwner) {
    this.#settings = settings;
    this.#owner = owner;
  }

  /**
   * Whether a thread's lock may be taken over (see the class comment): `"gone"`, its owner cannot run again
   * (or cannot be checked, stopped refreshing it, and declared no writes a takeover fences); `"stopped"`,
   * its owner lives (or cannot be checked) but stopped refreshing a lock whose writes a takeover fences;
   * `"held"`, it may not.
   */
  async verdict(holder: LockFileContent): Promise<"gone" | "stopped" | "held"> {
    const fenceable = holder.writes === "segment" || holder.writes === "state" || holder.writes === "record";
    if (await this.#isAbandoned(holder, this.#settings.staleMs)) {
      // An owner that cannot be checked (another host or container, no /proc) may still be running and
      // resume: one whose writes can be fenced is fenced, as a stopped one is, unless it is known gone.
      return fenceable && !(await this.#isKnownGone(holder)) ? "stopped" : "gone";
    }
    const stopped = fenceable && holder.ageMs > this.#settings.staleMs;
    return stopped && holder.hostname === this.#owner.host ? "stopped" : "held";
  }

  /** Whether the lock's owner is known to be gone: on this host, its pid dead or now another process's. */
  async #isKnownGone(holder: LockFileContent): Promise<boolean> {
    if (holder.pid === undefined || holder.hostname !== this.#owner.host) return false;
    if (!isProcessAlive(holder.pid)) return true;
    if (holder.started === undefined) return false;
    const started = await processStart(holder.pid);
    return started !== undefined && started !== holder.started;
  }

  /** Whether the lock's owner is gone or cannot be checked and stopped refreshing it. */
  async #isAbandoned(holder: LockFileContent, staleMs: number): Promise<boolean> {
    if (holder.pid !== undefined && holder.hostname === this.#owner.host && holder.started !== undefined) {
      if (!isProcessAlive(holder.pid)) return true;
      const started = await processStart(holder.pid);
      if (started !== undefined) return started !== holder.started;
    }
    return this.#isStale(holder, staleMs);
  }

  #isStale(holder: LockFileContent, staleMs: number): boolean {
    if (holder.pid === undefined) return holder.ageMs > Math.min(UNWRITTEN_LOCK_MS, staleMs);
    if (holder.hostname === this.#owner.host && !isProcessAlive(holder.pid)) return true;
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
  async breakLock(
    path: string,
    judged: LockFileContent,
    nonce: string,
    writes: LockWrites,
  ): Promise<"removed" | { writes: LockWrites; tookOver: boolean } | "busy"> {
    const breaker = `${path}.break`;
    if (!(await this.takeBreaker(breaker))) return "busy";
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
    if (outcome !== "busy") await sweepStaging(dirname(path), (other) => this.isGone(other));
    return outcome;
  }

  /** `breakLock`'s work, holding `.break`. */
  async #breakHeld(
    path: string,
    judged: LockFileContent,
    nonce: string,
    writes: LockWrites,
  ): Promise<"removed" | { writes: LockWrites; tookOver: boolean } | "busy"> {
    const current = await readLock(path);
    if (!current || current.nonce !== judged.nonce || current.pid !== judged.pid) return "busy";
    const verdict = await this.verdict(current);
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
    writeFileSync(replacement, await this.#owner.content(nonce, taken.writes, "fencing"));
    try {
      renameSync(replacement, path);
    } catch (error) {
      // Swept while this breaker was stopped before its rename (`LockDirectorySweeper.sweepUnlinked`):
      // nothing was replaced.
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
  async isGone(owner: StagingOwner): Promise<boolean> {
    if (owner.pid === undefined || owner.hostname !== this.#owner.host || owner.started === undefined)
      return false;
    if (!isProcessAlive(owner.pid)) return true;
    const started = await processStart(owner.pid);
    return started !== undefined && started !== owner.started;
  }

  /** Creates the `.break` file; false when another process holds it (one that is gone loses it). */
  async takeBreaker(breaker: string): Promise<boolean> {
    const nonce = newNonce();
    const own = createWhole(breaker, nonce, await this.#owner.content(nonce, "references", "breaking"));
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
  takeBreakerNow(breaker: string, own: OwnLock): boolean {
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
    const content = this.#owner.releaserContent();
    const created = createWhole(breaker, newNonce(), content);
    if (created) removeIfPresent(created.unlinked);
    return created !== undefined;
  }
}

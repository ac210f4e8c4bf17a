import type { StagingArea } from "./staging-area.js";

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

/** The lock a task runs under (`LockFiles.withLock`). */
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
   * What the last task on this holding of the lock left for the next one, which `LockFiles.withLock`'s
   * `linger` may give the same holding (undefined on a new holding): facts about files only a holder of the
   * lock writes, true when that task ended, so still true while the lock stays this holding's (`held`).
   */
  carried: unknown;
}

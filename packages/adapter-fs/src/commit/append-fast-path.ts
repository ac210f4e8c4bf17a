import type { Lease, LockWrites } from "../locks/lease.js";
import type { StoredLogRecord } from "../records/record-files.js";
import type { HeadEnd } from "../segments/head-end.js";
import type { SegmentFile } from "../segments/segment-directories.js";
import type { KnownIds, SegmentLog } from "../segments/segment-log.js";
import type { SegmentReader, SegmentTail } from "../segments/segment-reader.js";
import { CarriedAppend } from "./carried-append.js";

/**
 * The fast path of a loop of plain appends to one thread: the one place that decides when an append may skip
 * work the previous append on the same holding of the lock already did. It joins three mechanisms:
 * - kept locks: a plain append's lock lingers for the next plain append to the thread in the same turn
 *   (`lockOptions`, then `LockFiles.withLock`'s `linger` and `locks/lingering-locks.ts`), so a loop takes and
 *   releases the lock once;
 * - carried appends: what an append knew when it ended (record, head, tail, id buckets) rides on the kept
 *   lock's lease to the next one (`carry`, `resume`, `CarriedAppend`), which reads none of it again;
 * - the segment file cache: a carried head's open files are checked out trusted, without a stat
 *   (`headFileOptions`, `SegmentFileCache.checkout`).
 * `commitChange` starts each commit with `resume` and goes through the object it answers; the driver asks
 * `lockOptions` for the lock of each task.
 */
export class AppendFastPath {
  /**
   * What a thread's lock is taken with for a task that writes `writes`: a plain append's (`"segment"`) is kept
   * for the next one (`LockFiles.withLock` keeps it only when it took it at once and staged nothing).
   */
  static lockOptions(writes: LockWrites): { writes: LockWrites; linger: boolean } {
    return { writes, linger: writes === "segment" };
  }

  /** Starts a commit to thread `id` on `lease`: takes off the lease what the last plain append carried for it. */
  static resume(lease: Lease, id: string): AppendFastPath {
    return new AppendFastPath(lease, id, CarriedAppend.take(lease, id));
  }

  private constructor(
    readonly lease: Lease,
    readonly id: string,
    /** What the last plain append on this holding knew, when it was to this thread; else undefined. */
    readonly carried: CarriedAppend | undefined,
  ) {}

  /** How the head's files are checked out (`SegmentLog.withFiles`): trusted, with known ids, when carried. */
  get headFileOptions(): { trusted: boolean; knownIds?: KnownIds } {
    return { trusted: this.carried !== undefined, knownIds: this.carried?.knownIds };
  }

  /**
   * After a plain append committed `after` into the head: leaves on the lease what the next plain append to the
   * thread on this holding may use as it is (see `CarriedAppend` for why each stays true).
   */
  async carry(
    stored: StoredLogRecord,
    headEnd: HeadEnd | undefined,
    head: SegmentFile,
    headLog: SegmentLog,
    headFiles: SegmentReader,
    after: SegmentTail,
  ): Promise<void> {
    const knownIds = await headLog.knownIds(headFiles, after.count);
    this.lease.carried = new CarriedAppend(this.id, stored, headEnd, head, after, knownIds);
  }
}

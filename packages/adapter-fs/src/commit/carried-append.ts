import type { Lease } from "../locks/lease.js";
import type { StoredLogRecord } from "../records/record-files.js";
import type { HeadEnd } from "../segments/head-end.js";
import type { SegmentFile } from "../segments/segment-directories.js";
import type { KnownIds } from "../segments/segment-log.js";
import type { SegmentTail } from "../segments/segment-reader.js";

/**
 * What a plain append knew when it ended, carried to the next plain append to the same thread on the same
 * holding of its lock (`AppendFastPath`: a kept lock, `Lease.carried`). Each of these is changed only by
 * a holder of the thread's lock, and the lock stayed this holding's since (the next append is given the
 * holding only once it found it still `held`, later than all of these were true), so the next append uses
 * them as they are instead of reading them again (nor checks the lock again before writing: a takeover
 * after that check seals the head this record names, as one after a check would):
 * - the record file: replaced only by record writers (a plain append leaves it alone);
 * - the head's end file (`head-end.ts`): written only by appends holding the lock, this one's last;
 * - the head's seal: claimed only by a writer that took the lock over (so never during the holding), and
 *   found unclaimed by the holding's first append (`confirmAppend` still looks for it after each commit);
 * - the head's committed tail: this append's own, with nothing past it for a repair to cut;
 * - the head's id buckets' watermark and the id hashes of the entries they leave unlinked (`KnownIds`):
 *   stored and written by this holding's appends;
 * - the head's open files in the store's cache (`SegmentFileCache.checkout`'s `trusted`): checked by the
 *   holding's first append, and a head's directory is only reclaimed after the thread lets go of it.
 */
export class CarriedAppend {
  constructor(
    readonly id: string,
    readonly stored: StoredLogRecord,
    readonly headEnd: HeadEnd | undefined,
    readonly head: SegmentFile,
    readonly tail: SegmentTail,
    readonly knownIds: KnownIds,
  ) {}

  /** What the last task on `lease` carried for a plain append to thread `id`, taken off it; else undefined. */
  static take(lease: Lease, id: string): CarriedAppend | undefined {
    const carried = lease.carried;
    lease.carried = undefined;
    return carried instanceof CarriedAppend && carried.id === id ? carried : undefined;
  }
}

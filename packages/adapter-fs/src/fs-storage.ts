import type { FsCatalogue } from "./catalogue/fs-catalogue.js";
import type { LockFiles } from "./locks/lock-file.js";
import type { DurableFiles } from "./records/durable-files.js";
import type { PendingDeletes } from "./records/pending-deletes.js";
import type { RecordFiles } from "./records/record-files.js";
import type { StoreLayout } from "./records/store-layout.js";
import type { SegmentDirectories } from "./segments/segment-directories.js";
import type { SegmentLog } from "./segments/segment-log.js";

/**
 * The parts of a file store that its operations share; tools that work on the files directly use them too.
 * `FsLogDriver` is one; the operations it calls (`commitChange`, `putStateRecord`, `importSegment`,
 * `moveOffSealedHead`) take it from here, below the driver, so none of them imports the driver.
 */
export interface FsStorage {
  /** Where every file of the store lives. */
  readonly layout: StoreLayout;
  /** Writes with the store's durability. */
  readonly files: DurableFiles;
  /** Thread locks and the references lock. */
  readonly locks: LockFiles;
  /** The records under records/. */
  readonly records: RecordFiles;
  /** Segment directories and their references. */
  readonly segments: SegmentDirectories;
  /** Deletes in flight, finished by a later run when a crash cut them short. */
  readonly pendingDeletes: PendingDeletes;
  /** The index of `store.list`: every change is announced in its journal under the thread's lock. */
  readonly listIndex: FsCatalogue;
  /** One segment's messages; with `interim`, its appends are left unflushed (a streamed reply's batches). */
  log(segmentId: string, options?: { interim?: boolean }): SegmentLog;
}

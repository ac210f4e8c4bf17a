import { rm } from "node:fs/promises";
import { join } from "node:path";
import {
  ConcurrencyError,
  type JsonObject,
  type Message,
  StoreClosedError,
  ThreadExistsError,
} from "@skein/thread-core";
import type {
  CatalogueQuery,
  CommitResult,
  CountQuery,
  ExpiryQuery,
  LogChange,
  LogDriver,
  LogRecord,
  MessageRewrite,
  RecordRewrite,
  RecordSummary,
  SegmentInfo,
  SegmentWriteOptions,
  StateRecord,
  StoredRecord,
} from "@skein/thread-core/driver";
import { placeOf } from "./catalogue/catalogue-place.js";
import { FsCatalogue } from "./catalogue/fs-catalogue.js";
import { AppendFastPath } from "./commit/append-fast-path.js";
import { changeWrites, commitChange, NEEDS_RECORD_LOCK } from "./commit/commit-change.js";
import { CorruptStoreError, guardInputOutput, hasCode, missingEvents, SOURCE } from "./errors.js";
import type { FsStorage } from "./fs-storage.js";
import type { Lease, LockWrites } from "./locks/lease.js";
import { LockFiles } from "./locks/lock-file.js";
import { type Durability, DurableFiles } from "./records/durable-files.js";
import { finishEveryPendingDelete, finishPendingDeletes } from "./records/finish-pending-deletes.js";
import { PendingDeletes } from "./records/pending-deletes.js";
import { putStateRecord } from "./records/put-state.js";
import {
  inlineForm,
  knownEvents,
  liveRecord,
  RecordFiles,
  referencedSegments,
  type StoredLogRecord,
} from "./records/record-files.js";
import { StoreLayout } from "./records/store-layout.js";
import { rewriteRecordFile } from "./rekey/record-rewrite.js";
import { rewriteSegment } from "./rekey/segment-rewrite.js";
import { hasSwapMark, settleSwap } from "./rekey/segment-swap.js";
import { threadEnd } from "./segments/head-end.js";
import { IMPORT_BATCH, importSegment, importSegments } from "./segments/import-segment.js";
import { mayBeInterim, readInterimPrefix } from "./segments/interim-prefix.js";
import { newSegmentId, SegmentDirectories, threadReferrer } from "./segments/segment-directories.js";
import { SegmentFileCache } from "./segments/segment-file-cache.js";
import { type HeadState, SegmentLog } from "./segments/segment-log.js";
import { withReader } from "./segments/segment-reader.js";
import { watchSegment } from "./segments/segment-watch.js";
import { isSealed, publishSeal, sealState } from "./takeover/head-seal.js";
import { moveOffSealedHead } from "./takeover/head-takeover.js";

/** How many times a segment read that meets a key rotation's swap is made (`#readSwapped`). */
const SWAPPED_READS = 3;

/** A `"state"` delete found a local thread under the id: it is deleted again under a `"record"` lock. */
const LOCAL_THREAD = Symbol("local thread");

/** Options of `FsLogDriver`: the directory, durability and lock timing. */
export interface FsLogDriverOptions {
  /** The store's directory; created if missing, unless `create` is false. */
  directory: string;
  /**
   * Whether a directory that holds no store yet is made one. With `false`, the store only opens an existing
   * store: any operation on a missing one fails with `StoreNotFoundError`, creating nothing.
   * @default true
   */
  create?: boolean;
  /** @default "fsync" */
  durability?: Durability;
  /** How long a writer waits for a thread's lock before `LockTimeoutError`. @default 10_000 */
  lockTimeoutMs?: number;
  /**
   * A thread's lock unrefreshed this long is taken over from a writer that stopped running (its late
   * writes fenced off), or from an owner that cannot be checked (another host). Keep it below
   * `lockTimeoutMs`. @default 5_000
   */
  staleLockMs?: number;
}

/**
 * Local thread logs in files: the `LogDriver` behind `fsStore`. Appends write only their own bytes, every
 * change to a thread happens under its lock file, and a crash at any instant leaves every thread readable
 * with every acknowledged change. See the README for the layout.
 */
export class FsLogDriver implements LogDriver, FsStorage {
  readonly specificationVersion = "v1";
  readonly source = SOURCE;
  readonly nativeType = "fs";
  readonly layout: StoreLayout;
  readonly files: DurableFiles;
  /** `files` with appends left unflushed: a streamed reply's batches (`SegmentWriteOptions.interim`). */
  readonly #interimFiles: DurableFiles;
  readonly locks: LockFiles;
  readonly records: RecordFiles;
  readonly segments: SegmentDirectories;
  readonly pendingDeletes: PendingDeletes;
  readonly listIndex: FsCatalogue;
  /** Segment files kept open from one operation to the next, bounded (see `SegmentFileCache`). */
  readonly #openFiles = new SegmentFileCache();
  #ready: Promise<void> | undefined;
  #closed = false;
  readonly #create: boolean;

  constructor(options: FsLogDriverOptions) {
    this.layout = new StoreLayout(options.directory);
    this.#create = options.create ?? true;
    this.files = new DurableFiles(options.durability ?? "fsync", this.layout.temporary);
    this.#interimFiles = this.files.interimFiles();
    this.locks = new LockFiles({
      timeoutMs: options.lockTimeoutMs ?? 10_000,
      staleMs: options.staleLockMs ?? 5_000,
    });
    this.records = new RecordFiles(this.layout, this.files);
    this.segments = new SegmentDirectories(this.layout, this.files);
    this.pendingDeletes = new PendingDeletes(this.layout, this.files);
    this.listIndex = new FsCatalogue(this.layout.catalogue, this.files, {
      ids: () => this.records.ids(),
      read: async (id) => {
        const stored = this.records.readNow(id);
        return stored?.kind === "log" ? this.#live(stored, "none") : stored;
      },
    });
  }

  log(segmentId: string, options: { interim?: boolean } = {}): SegmentLog {
    const files = options.interim ? this.#interimFiles : this.files;
    return new SegmentLog(this.layout.segmentDirectory(segmentId), files, this.#openFiles);
  }

  async read(id: string, known?: LogRecord): Promise<StoredRecord | undefined> {
    return this.#run("read", async () => {
      const stored = await this.records.read(id);
      return stored?.kind === "log" ? this.#live(stored, known) : stored;
    });
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    await this.#run("create", () =>
      this.#withThreadLock(record.id, "record", async (lease) => {
        if (await this.records.read(record.id)) throw new ThreadExistsError(record.id, { source: SOURCE });
        const place = placeOf(record);
        this.listIndex.announce(record.id, place, null);
        // One barrier flushes the references, the new head segment and the record's staged file; then the
        // record is renamed into place, the commit point, from the lock's staged file (a takeover fences
        // it off). Its first events stay inline (one file).
        await lease.staging.guard("create", async () => {
          const staged = this.records.stage(
            inlineForm({ ...record, head: head.id }),
            lease.staging,
            "create",
          );
          try {
            await this.locks.withLock(this.layout.referencesLock, () =>
              this.segments.create(head, {
                owner: record.id,
                referrer: threadReferrer(record.id),
                alsoRetain: referencedSegments(record),
                alsoSync: [staged.temporary],
              }),
            );
          } catch (error) {
            await rm(staged.temporary, { force: true });
            throw error;
          }
          await this.files.replace(staged);
        });
        this.listIndex.settle(record.id, place);
      }),
    );
  }

  async commit(id: string, change: LogChange): Promise<CommitResult> {
    return this.#run("commit", async () => {
      const result = await this.#withThreadLock(id, changeWrites(change, this.files.durability), (lease) =>
        commitChange(this, id, change, lease),
      );
      if (result !== NEEDS_RECORD_LOCK) return result;
      // The head is sealed by a takeover that stopped before moving the thread off it (finished as a
      // record writer: `#withThreadLock` does it), or the change keeps an end the record does not hold yet:
      // the change is made under a `"record"` lock.
      const again = await this.#withThreadLock(id, "record", (lease) =>
        commitChange(this, id, change, lease),
      );
      if (again === NEEDS_RECORD_LOCK)
        throw new CorruptStoreError(this.layout.recordPath(id), "its head stays sealed");
      return again;
    });
  }

  async putState(id: string, state: JsonObject, options: { ifRevision?: number } = {}): Promise<StateRecord> {
    // A `"state"` lock: taken over from this writer if it stops (see `StagingArea`).
    return this.#run("save", () =>
      this.#withThreadLock(id, "state", (lease) => putStateRecord(this, id, state, options, lease)),
    );
  }

  /** `delete` checks `ifRevision` under the thread's lock, before anything is removed. */
  readonly fencedDelete = true;
  /**
   * Kept in the record file, or, once an append set it without rewriting the record, in the head's end file
   * (`changeWrites`, `head-end.ts`).
   */
  readonly storesEnd = true;

  async delete(id: string, options: { ifRevision?: number } = {}): Promise<boolean> {
    return this.#run("delete", async () => {
      // A state record is removed under a `"state"` lock, through its staging directory; a local thread
      // (or an id that became one meanwhile: tried again) under a `"record"` one.
      if ((await this.records.read(id))?.kind === "state") {
        const removed = await this.#withThreadLock(id, "state", (lease) =>
          this.#deleteRecord(id, options, lease),
        );
        if (removed !== LOCAL_THREAD) return removed;
      }
      const removed = await this.#withThreadLock(id, "record", (lease) =>
        this.#deleteRecord(id, options, lease),
      );
      return removed === true;
    });
  }

  /** Deletes the record under `id`; `LOCAL_THREAD` when a `"state"` lease finds a local thread there. */
  async #deleteRecord(
    id: string,
    options: { ifRevision?: number },
    lease: Lease,
  ): Promise<boolean | typeof LOCAL_THREAD> {
    // What a holding killed inside a delete of this id left (a rerun of the delete finishes it).
    if (lease.writes === "record") await finishPendingDeletes(this, id, lease);
    const stored = await this.records.read(id);
    if (!stored) return false;
    if (stored.kind === "log" && lease.writes === "state") return LOCAL_THREAD;
    if (options.ifRevision !== undefined) {
      // A log's record file lags behind its head's commits: the live revision is the head's.
      const revision = stored.kind === "log" ? (await this.#live(stored, "none"))?.revision : stored.revision;
      if (revision === undefined) return false;
      if (revision !== options.ifRevision)
        throw new ConcurrencyError(id, options.ifRevision, revision, { source: SOURCE });
    }
    if (stored.kind === "state") {
      this.listIndex.announce(id, null, placeOf(stored));
      await this.records.removeState(id, lease.staging);
      this.listIndex.settle(id, null);
      return true;
    }
    const events = await this.records.events(stored);
    if (!events) throw missingEvents(this.layout.eventsPath(id));
    // Where listings have the thread: its time is its head's last commit (a damaged head: the record's).
    const live = await this.#live(stored, "none").catch(() => undefined);
    this.listIndex.announce(id, null, placeOf(live ?? { ...stored, length: 0, events }));
    const segments = referencedSegments({ head: stored.head, events });
    // Written before the removal: a crash from here until the releases are done leaves it for a later
    // sweep, erasure or delete of the id to finish (`finishPendingDeletes`).
    const pending = await this.pendingDeletes.write(id, lease.staging.nonce, segments);
    // Renamed away through the lock's staging directory: a takeover fences the removal off.
    await this.records.remove(id, lease.staging);
    this.listIndex.settle(id, null);
    await this.locks.withLock(this.layout.referencesLock, async () => {
      // A writer whose lock was taken over after its removal landed releases nothing: a new thread under
      // the id, made by the writer that took it over, may need these references. Its pending delete stays,
      // for whoever holds the lock next to finish, keeping what the thread then under the id needs.
      if (!lease.held()) return;
      for (const segment of segments) await this.segments.release(segment, threadReferrer(id));
      this.pendingDeletes.remove(pending);
    });
    return true;
  }

  async list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    return this.#run("list", async () => {
      // A page of a scan (a sweep's, an erasure's) first finishes the deletes a crash cut short: one
      // `readdir` of an empty directory when there are none, against the page's reads of every record.
      await this.#finishEveryPendingDelete();
      const prefix = options.prefix ?? "";
      const ids = (await this.records.ids())
        .filter((id) => id.startsWith(prefix) && (options.after === undefined || id > options.after))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const summaries: RecordSummary[] = [];
      for (const id of ids) {
        if (summaries.length >= options.limit) break;
        const stored = await this.records.read(id);
        // Gone meanwhile (deleted by another writer); a summary needs no history.
        const record = stored?.kind === "log" ? await this.#live(stored, "none") : stored;
        if (!record) continue;
        const type = record.kind === "log" ? record.type : String(record.state.$type);
        summaries.push({ id, type, updatedAt: record.updatedAt });
      }
      return summaries;
    });
  }

  /**
   * A page of `store.list` from the catalogue (`FsCatalogue`): O(page) records read, however many threads
   * the store and the owner hold.
   */
  async catalogue(query: CatalogueQuery): Promise<StoredRecord[]> {
    return this.#run("list", async () => {
      // Only a sweep asks with `until`: each of its pages first finishes the deletes a crash cut short.
      if (query.until !== undefined) await this.#finishEveryPendingDelete();
      return this.listIndex.page(query);
    });
  }

  /**
   * The threads of a scope past their own `expiresAt`, from the catalogue's expiry order: a sweep reads
   * O(expired) records, not the store.
   */
  async expiring(query: ExpiryQuery): Promise<StoredRecord[]> {
    return this.#run("list", async () => {
      // Each page of a sweep first finishes the deletes a crash cut short (as `list` and `catalogue` do).
      await this.#finishEveryPendingDelete();
      return this.listIndex.expiring(query);
    });
  }

  /** After `store.erase`: no catalogue line or snapshot entry names `owner` for a thread erased. */
  async forgetOwner(owner: string): Promise<void> {
    return this.#run("list", async () => {
      await this.#finishEveryPendingDelete();
      await this.listIndex.forgetOwner(owner);
    });
  }

  /** `store.count` from the catalogue, without `where`; undefined (refused) with it. */
  async countCatalogue(query: CountQuery): Promise<number | undefined> {
    return this.#run("list", () => this.listIndex.count(query));
  }

  async segment(id: string): Promise<SegmentInfo | undefined> {
    return this.#run("read", async () => {
      const info = await this.segments.info(id);
      return (
        info && {
          id: info.id,
          base: info.base && { ...info.base },
          start: info.start,
          createdAt: info.createdAt,
        }
      );
    });
  }

  async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    return this.#run("read", async () => {
      try {
        return await this.#readSwapped(id, () => this.log(id).readMessages(from, to));
      } catch (error) {
        // A streamed reply's batches, written unflushed, that a power loss damaged: read up to the damage.
        if (!CorruptStoreError.isInstance(error) || !(await mayBeInterim(this.segments, id))) throw error;
        return readInterimPrefix(this.log(id), from, to);
      }
    });
  }

  async locate(id: string, messageId: string, before: number) {
    return this.#run("read", async () => {
      const [found] = await this.#readSwapped(id, () => this.log(id).locate([messageId], before));
      return found && { offset: found.offset };
    });
  }

  /**
   * A read of segment `id` that found a line not matching its entry, read again: a key rotation may have
   * swapped the segment's files between this read's opening of the index and of the log (the next read
   * opens both anew), or stopped half-way through the swap, which is settled first under the locks its
   * writers take (`segment-swap.ts`). A few times, for a segment whose batches are swapped in one after
   * another; damage fails every read.
   */
  async #readSwapped<T>(id: string, read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (error) {
        if (!CorruptStoreError.isInstance(error) || attempt >= SWAPPED_READS) throw error;
        const directory = this.layout.segmentDirectory(id);
        if (hasSwapMark(directory))
          await this.#withSegmentWriters(id, () => settleSwap(directory, this.files));
      }
    }
  }

  /**
   * Key rotation (`store.rekey`): see `LogDriver.rewriteMessages` and `rewriteSegment`. The segment is
   * copied and swapped in under its owner's lock and the references lock, which every writer of it holds.
   */
  async rewriteMessages(segment: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]> {
    return this.#run("rekey", async () => {
      if (rewrites.length === 0) return [];
      if (!(await this.segments.info(segment, { cached: false }))) return rewrites.map(() => false);
      return this.#withSegmentWriters(segment, async (stillHeld) => {
        // Reclaimed (its threads deleted) while this waited for the locks: nothing left to rewrite.
        if (!(await this.segments.info(segment, { cached: false }))) return rewrites.map(() => false);
        return rewriteSegment(this.log(segment), rewrites, stillHeld);
      });
    });
  }

  /** A rewrite copies the whole segment (`rewriteSegment`): rekey gives it a segment's rewrites together. */
  readonly rewritesWholeSegments = true;

  /** Key rotation: see `LogDriver.rewriteRecord` and `rewriteRecordFile`. */
  async rewriteRecord(id: string, rewrite: RecordRewrite): Promise<boolean> {
    return this.#run("rekey", () =>
      this.#withThreadLock(id, "record", (lease) => rewriteRecordFile(this, id, rewrite, lease)),
    );
  }

  /**
   * Runs `task` holding every lock a writer of segment `id` may hold: its owner's (the thread it was made
   * the head of, which alone appends to it) and the references lock (imports, reclaims). `stillHeld` says
   * whether the owner's lock is still this process's (a takeover of a stalled holder revokes it).
   */
  async #withSegmentWriters<T>(id: string, task: (stillHeld: () => boolean) => Promise<T>): Promise<T> {
    const owner = (await this.segments.info(id))?.owner;
    const underReferences = (stillHeld: () => boolean) =>
      this.locks.withLock(this.layout.referencesLock, () => task(stillHeld));
    if (owner === undefined) return underReferences(() => true);
    return this.#withThreadLock(owner, "record", (lease) => underReferences(() => lease.held()));
  }

  async systemOffsets(id: string, before: number): Promise<number[]> {
    return this.#run("read", () => this.log(id).systemOffsets(before));
  }

  /** With `interim` (a streamed reply's batch) nothing is flushed: see `importSegment` and README "Durability". */
  async importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options: SegmentWriteOptions = {},
  ): Promise<void> {
    const interim = options.interim === true;
    await this.#run("import", () =>
      this.locks.withLock(this.layout.referencesLock, () =>
        importSegment(this, segment, messages, from, { interim }),
      ),
    );
  }

  /** Many segments at once: each batch of IMPORT_BATCH is made durable behind one barrier (see `importSegments`). */
  async importSegments(segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>): Promise<void> {
    await this.#run("import", async () => {
      for (let from = 0; from < segments.length; from += IMPORT_BATCH) {
        const batch = segments.slice(from, from + IMPORT_BATCH);
        await this.locks.withLock(this.layout.referencesLock, () => importSegments(this, batch));
      }
    });
  }

  /** Reclaims a segment nothing references (a streamed reply's batches once the reply landed), as a delete would. */
  async dropSegment(id: string): Promise<void> {
    await this.#run("delete", () =>
      this.locks.withLock(this.layout.referencesLock, () => this.segments.drop(id)),
    );
  }

  /** Wakes followers of a streamed reply when its segment's files change, in this process or another. */
  watch(segment: string, listener: () => void): () => void {
    return watchSegment(this.layout.segmentDirectory(segment), listener);
  }

  /** Segment ids in lowercase hex, so their file names need no escaping. */
  newSegmentId(): string {
    return newSegmentId();
  }

  /** Flushes what "batch" durability left unflushed; the driver refuses work afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    // A kept lock whose release fails must not skip the flush that close promises.
    try {
      await this.locks.close();
    } finally {
      this.listIndex.close();
      try {
        await this.files.flush();
      } finally {
        await this.#openFiles.close();
      }
    }
  }

  /**
   * The record brought up to its head's last commit; undefined if the thread was deleted meanwhile. Its
   * events are `known`'s when that is the same record (`knownEvents`), none for "none", else read.
   */
  async #live(stored: StoredLogRecord, known?: LogRecord | "none"): Promise<LogRecord | undefined> {
    const head = await this.segments.info(stored.head);
    const log = this.log(stored.head);
    let visible: HeadState | undefined;
    try {
      visible = head && (await log.visibleTail(stored));
    } catch (error) {
      // A record write that took the end back into the record (the end file made void), or moved the thread
      // on, or its deletion, under this reader: the record read again tells that from an end file gone from
      // a head that still keeps it.
      if (!CorruptStoreError.isInstance(error) || error.path !== log.paths.end) throw error;
      const again = this.records.readNow(stored.id);
      if (JSON.stringify(again) === JSON.stringify(stored)) throw error;
      return again?.kind === "log" ? this.#live(again, known) : undefined;
    }
    let tail = visible?.tail;
    let end = threadEnd(stored, visible?.headEnd);
    // Checked after the tail is read: an appender whose lock was taken over writes past the sealed end
    // only after the seal is claimed (`head-takeover.ts`), so a tail read with no seal yet is all sealed in.
    const directory = this.layout.segmentDirectory(stored.head);
    const seal = tail && isSealed(directory) ? sealState(directory) : undefined;
    if (seal?.state === "claimed" && head) {
      // Its taker has not published where the head ends (it may be stopped itself): the reader publishes
      // it, without the thread's lock, which a stopped taker would hold. The first publication wins, and
      // the record and the tail are read again now that the claim was seen, so they hold every commit an
      // appender acknowledged (an appender acknowledges only when it found no claim after its commit was
      // written; a record writer's rename, once the claim is made, is fenced off).
      const current = this.records.readNow(stored.id);
      if (current?.kind !== "log" || current.head !== stored.head) {
        return current?.kind === "log" ? this.#live(current, known) : undefined;
      }
      const claimed = await log.visibleTail(current);
      const claimedEnd = liveRecord(
        current,
        head.start,
        claimed.tail,
        [],
        threadEnd(current, claimed.headEnd),
      ).end;
      try {
        await this.files.syncFiles([log.paths.log, log.paths.index, log.paths.system]);
        publishSeal(directory, claimed.tail.count, this.layout.temporary, claimedEnd);
      } catch (error) {
        if (!hasCode(error, "ENOENT")) throw error; // the head was reclaimed: the thread was deleted or moved
      }
      const again = this.records.readNow(stored.id);
      return again?.kind === "log" ? this.#live(again, known) : undefined;
    }
    if (seal?.state === "sealed" && tail && tail.count > seal.count) {
      const sealed = seal.count;
      tail = await withReader(log.paths, (reader) => reader.tail(sealed));
      // The end file may hold an end the appender taken over wrote past the seal: the seal's end is the one.
      // A seal without one, for a record that keeps its end in the end file, was rewritten once the thread
      // moved off this head (`dropSealEnd`): the record read again names the new head.
      if (seal.end !== undefined) end = seal.end;
      else if (stored.endFile) {
        const again = this.records.readNow(stored.id);
        if (JSON.stringify(again) === JSON.stringify(stored))
          throw new CorruptStoreError(join(directory, "sealed-at"), "it holds no end for the thread");
        return again?.kind === "log" ? this.#live(again, known) : undefined;
      }
    }
    const record = head && tail && liveRecord(stored, head.start, tail, [], end);
    const reused = typeof known === "object" && record ? knownEvents(known, record, stored) : undefined;
    const events = known === "none" ? [] : (reused ?? (await this.records.events(stored)));
    // Read without a lock, so check the record again when these reads may not go with it: a head or history
    // that is gone or made anew, a head with no commit (a delete may have just removed it), or commits after
    // the record's own (another writer may have replaced it meanwhile: a checkpoint between two appends).
    // Commits up to the end file's slot go with the record when an append on this very record wrote the
    // slot (`recordRevision`, `recordRekeyed`): the slot was read after the record, the tail after the slot, and every commit
    // past the slot is cut off, so what is read is the thread as that append left it.
    const headEnd = visible?.headEnd;
    const written =
      headEnd?.recordRevision === stored.revision && headEnd.recordRekeyed === (stored.rekeyed ?? 0);
    const goesWith = written ? headEnd.revision : stored.revision;
    if (!record || !events || !tail?.last || tail.last.revision > goesWith) {
      const again = this.records.readNow(stored.id);
      if (JSON.stringify(again) !== JSON.stringify(stored)) {
        return again?.kind === "log" ? this.#live(again, known) : undefined;
      }
      if (!record)
        throw new CorruptStoreError(this.layout.recordPath(stored.id), "its head segment is missing");
      if (!events) throw missingEvents(this.layout.eventsPath(stored.id));
    }
    record.events = events;
    return record;
  }

  /**
   * Runs `task` holding the thread's lock, declaring what it writes. A record writer first moves the thread
   * off a head that a lock takeover sealed, and a writer that took the lock over from an owner that may
   * still run seals that owner's head first (`moveOffSealedHead`): nothing writes into it any more; it
   * also rotates the thread's history file (`RecordFiles.rotateEvents`), so that the owner's late event
   * writes land in a file no reader opens.
   */
  #withThreadLock<T>(id: string, writes: LockWrites, task: (lease: Lease) => Promise<T>): Promise<T> {
    return this.locks.withLock(
      this.layout.threadLockPath(id),
      async (lease) => {
        if (lease.writes === "record") await moveOffSealedHead(this, id, lease, { claim: lease.tookOver });
        if (lease.tookOver) await this.records.rotateEvents(id, lease.staging);
        return task(lease);
      },
      // A plain append's lock is kept for the next append to the thread in this turn (`AppendFastPath`).
      AppendFastPath.lockOptions(writes),
    );
  }

  /** Finishes the deletes a crash cut short, anywhere in the store (`finishEveryPendingDelete`). */
  #finishEveryPendingDelete(): Promise<void> {
    return finishEveryPendingDelete(this, (thread, task) => this.#withThreadLock(thread, "record", task));
  }

  /**
   * Makes the store's directories (or, with `create: false`, finds the store), checks its format and clears
   * leftovers: what every operation does first, once. `openStore` calls it so that a path that cannot hold
   * a store fails on open.
   */
  async prepare(): Promise<void> {
    await this.#run("open", async () => {});
  }

  async #run<T>(operation: string, task: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreClosedError({ source: SOURCE });
    return guardInputOutput(operation, async () => {
      this.#ready ??= this.layout.prepare(this.files, this.#create);
      try {
        await this.#ready;
      } catch (error) {
        this.#ready = undefined; // a failed start (a full disk, say) is tried again by the next call
        throw error;
      }
      return task();
    });
  }
}

import { rm } from "node:fs/promises";
import {
  ConcurrencyError,
  type HistoryEvent,
  type LogPoint,
  type Message,
  ThreadNotFoundError,
} from "@skein/thread-core";
import {
  type CommitResult,
  eventSegments,
  HeadMovedError,
  type LogChange,
  type LogRecord,
} from "@skein/thread-core/driver";
import { placeOf } from "../catalogue/catalogue-place.js";
import { CorruptStoreError, LockLostError, missingEvents, SOURCE } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import type { Lease, LockWrites } from "../locks/lease.js";
import type { Durability, StagedFile } from "../records/durable-files.js";
import {
  type EventLog,
  knownEvents,
  liveRecord,
  type StoredLogRecord,
  storedForm,
} from "../records/record-files.js";
import { confirmedRevision, fitsHeadEnd, type HeadEnd, threadEnd } from "../segments/head-end.js";
import { threadReferrer } from "../segments/segment-directories.js";
import type { SegmentLog } from "../segments/segment-log.js";
import { EMPTY_TAIL, type SegmentReader } from "../segments/segment-reader.js";
import { isSealed } from "../takeover/head-seal.js";
import { confirmAppend, continuedBases, heldInBases, moveOffSealedHead } from "../takeover/head-takeover.js";
import { AppendFastPath } from "./append-fast-path.js";

/**
 * Applies one change to a local thread, in the order `LogChange` documents. Call it holding the thread's
 * lock. Write order makes every crash safe:
 * 1. new references and a new head segment (an extra reference is a leak at worst, never a loss);
 * 2. the appended lines, then their index entries: the commit point of a plain append, which leaves the
 *    record file alone, so an append costs the same at any length;
 * 3. for a change that also moves the head or records an event or metadata, the event after the ones the
 *    record counts, then the record, replaced whole: that change's commit point. Entries it appended to
 *    the current head are marked `guarded` and count only once the record has their revision.
 * The history is read only when the caller's `known` record is not the current one, so a commit costs the
 * same however many events the thread has.
 *
 * A stopped owner may lose its lock to a takeover (`head-takeover.ts`): the commit checks that the lock is
 * still its own after reading the record, so the head it writes into is the one a takeover seals; a plain
 * append confirms its commit against the seal before answering; a change that rewrites the record renames
 * the lock's staged files (`StagingArea`) and writes its event only after checking the lock
 * (`RecordFiles.appendEvents`), so a takeover fences it off (`LockLostError`, nothing landed). Under a
 * `"segment"` lock it answers `NEEDS_RECORD_LOCK` when it finds its head sealed by a takeover that did
 * not finish, or an end for an end file the record does not say its head has yet: the caller makes the
 * change (and finishes the takeover) under a `"record"` lock.
 */
export async function commitChange(
  storage: FsStorage,
  id: string,
  change: LogChange,
  lease: Lease,
): Promise<CommitResult | typeof NEEDS_RECORD_LOCK> {
  // A plain append on the holding of the thread's last one (a kept lock) reads none of these again.
  const fastPath = AppendFastPath.resume(lease, id);
  const carried = fastPath.carried;
  // The record is a few hundred bytes the page cache holds: read at once, not through the thread pool.
  const stored = carried?.stored ?? storage.records.readNow(id);
  if (stored?.kind !== "log") throw new ThreadNotFoundError(id, { source: SOURCE });
  const lockPath = storage.layout.threadLockPath(id);
  // Checked after the record is read; what an append carried was checked held after it (when the lingering
  // lock was given to this append: `LockFiles.withLock`).
  if (!carried && !lease.held())
    throw new LockLostError(lockPath, {}, lease.writes === "segment" ? "append" : "commit");
  if (!carried && isSealed(storage.layout.segmentDirectory(stored.head))) {
    if (lease.writes === "segment") return NEEDS_RECORD_LOCK;
    await moveOffSealedHead(storage, id, lease, { claim: false });
    return commitChange(storage, id, change, lease);
  }
  // An end the head's end file would take, for a record that does not say the head has one (`endFile`: a
  // thread's first encrypted append, the first on a head new since, or the first after a record write took
  // the end back), goes through the record: the end file first, then the record saying so, without an end.
  const marksEndFile =
    change.end !== undefined &&
    stored.endFile !== true &&
    changeWrites(change, storage.files.durability) === "segment";
  if (marksEndFile && lease.writes === "segment") return NEEDS_RECORD_LOCK;
  const headInfo = carried?.head ?? (await storage.segments.info(stored.head));
  if (!headInfo) throw new CorruptStoreError(storage.layout.recordPath(id), "its head segment is missing");
  const headLog = storage.log(stored.head);
  // A head that a lock takeover made continues the one the change was planned on: the same log. What the
  // continued segments hold below their continuation points never changes, so it is looked up first,
  // before the head's files are held.
  const continued =
    stored.head === change.expectHead ? [] : await continuedBases(storage, headInfo, change.expectHead);
  const heldBelow =
    continued && !change.newHead ? await heldInBases(storage, continued, change.append ?? []) : [];
  // Its head's cached files are checked against their paths unless carried (`AppendFastPath.headFileOptions`).
  return headLog.withFiles(async (headFiles) => {
    // The end file (of a record that says its head has one) is read before a repair cuts what it does not
    // confirm.
    const headEnd = carried
      ? carried.headEnd
      : stored.endFile
        ? await readHeldEnd(() => headLog.readEnd(headFiles), lease, lockPath)
        : undefined;
    // A record that holds its end may have a whole slot beside it, left by a crash before a write's `voidEnd`.
    if (!carried && !marksEndFile && stored.endFile !== true && stored.end !== undefined)
      await headLog.voidLeftEnd(stored.revision, headFiles);
    const tail =
      carried?.tail ?? (await headLog.repair(confirmedRevision(stored.revision, headEnd), headFiles));
    const record = liveRecord(stored, headInfo.start, tail, [], threadEnd(stored, headEnd));
    // A carried record is shared by the holding's appends: each answer gets objects of its own.
    if (carried) ownObjects(record);
    const events = knownEvents(change.known, record, stored) ?? (await storage.records.events(stored));
    if (!events) throw missingEvents(storage.layout.eventsPath(id));
    record.events = events;
    if (change.ifRevision !== undefined && change.ifRevision !== record.revision) {
      throw new ConcurrencyError(id, change.ifRevision, record.revision, { source: SOURCE });
    }
    if (!continued) throw new HeadMovedError(id, { source: SOURCE });
    // A change that sets the end (an encrypted store's) is sealed for the head it was planned on: its end
    // names that head, its messages their offsets there. The caller plans it again on the head it finds.
    if (continued.length > 0 && change.end !== undefined && !change.newHead) {
      throw new HeadMovedError(id, { source: SOURCE });
    }
    const append = change.append ?? [];
    // A new head is empty; the current one may hold some ids already (a retry): then nothing is written.
    const held = change.newHead
      ? []
      : [...(await heldMessages(headLog, headFiles, tail.count, append)), ...heldBelow];
    if (held.length > 0) return { record, messages: [], held };
    // Each message's JSON once: the line written and, parsed back, the message as stored.
    const lines = append.map((message) => JSON.stringify(message));
    const written = lines.map((line) => JSON.parse(line) as Message);
    const rewritesRecord = changeWrites(change, storage.files.durability) === "record" || marksEndFile;
    if (!rewritesRecord && append.length === 0) return { record, messages: written };

    const now = Date.now();
    const next = nextRecord(record, change, headInfo.start, append.length, now);
    // An append that sets the end without rewriting the record commits by writing the head's end file.
    const newEnd: HeadEnd | undefined =
      !rewritesRecord && change.end !== undefined
        ? {
            revision: next.revision,
            recordRevision: stored.revision,
            recordRekeyed: stored.rekeyed ?? 0,
            end: change.end,
          }
        : undefined;
    const guarded = (rewritesRecord && !change.newHead) || newEnd !== undefined;
    // The record says its head has an end file, and holds no end of its own, while the head stays and its
    // end stays there: a change that sets the end through the record (not marking the end file) takes it
    // back into the record, and a new head has none. The end file left behind is then made void.
    const endFile =
      !change.newHead && ((stored.endFile === true && change.end === undefined) || marksEndFile);
    const voidsEndFile = stored.endFile === true && !endFile;
    const stamp = { revision: next.revision, committedAt: now, guarded };
    // Every check that may refuse the change is behind us: the catalogue learns where the thread goes
    // before it can go there (a crash from here on leaves it at one of the two places announced). The lock
    // is checked at once before, so a writer stopped and taken over meanwhile announces nothing.
    if (!lease.held())
      throw new LockLostError(lockPath, {}, lease.writes === "segment" ? "append" : "commit");
    storage.listIndex.announce(id, placeOf(next), placeOf(record));
    if (!rewritesRecord) {
      const after = await headLog.append(append, stamp, tail, headFiles, lines);
      // The commit point of an append that sets the end: its entries, guarded, are flushed already.
      if (newEnd) await headLog.writeEnd(newEnd, headFiles);
      await confirmAppend(storage, stored.head, after.count, lockPath);
      await fastPath.carry(stored, newEnd ?? headEnd, headInfo, headLog, headFiles, after);
      // The record read from disk is carried from now on: this answer, too, gets objects of its own.
      if (!carried) ownObjects(next);
      return { record: next, messages: written };
    }
    // The new events, the record's temporary file and any new references and head segment are flushed in
    // one barrier; then the messages go in, and the record is renamed into place: the commit point. Its
    // renames are of the lock's staged files, so a takeover fences them off (`StagingArea`).
    await lease.staging.guard("commit", async () => {
      const history = await stageHistory(storage, stored, next, lease);
      let staged: StagedFile;
      try {
        staged = storage.records.stage(storedForm(next, history.log, endFile), lease.staging);
      } catch (error) {
        // A history staged whole just before is renamed by no one when the record's write failed (ENOSPC, EIO); a
        // lost lock's staged files the taker's sweep removes anyway.
        if (history.staged) await rm(history.staged.temporary, { force: true });
        throw error;
      }
      try {
        const unsynced = [...history.unsynced, staged.temporary];
        // Into the new head if the change makes one, else after the current head's last commit.
        if (append.length > 0 && change.newHead) {
          await addReferences(storage, id, record, next, change, unsynced);
          await storage.log(change.newHead.id).append(append, stamp, EMPTY_TAIL);
        } else if (append.length > 0) {
          // Guarded entries count only once the record has their revision, so they and the files the record
          // needs are flushed side by side (a streamed reply's `end` waits for one round fewer); the record is
          // renamed after both.
          await allSettled([
            addReferences(storage, id, record, next, change, unsynced),
            headLog.append(append, stamp, tail, headFiles),
          ]);
          // The end file the record is about to name, written and flushed after the entries it confirms and
          // before the record's rename: a crash between the two leaves a record without the marker, which
          // does not read the end file (the append's entries, unconfirmed, are cut), and the next append does
          // this again; never a record naming an end file that is not on disk.
          if (marksEndFile && change.end !== undefined)
            await headLog.writeEnd(
              { revision: next.revision, recordRevision: next.revision, recordRekeyed: 0, end: change.end },
              headFiles,
            );
        } else await addReferences(storage, id, record, next, change, unsynced);
        if (history.staged) await storage.files.replace(history.staged);
      } catch (error) {
        await rm(staged.temporary, { force: true });
        if (history.staged) await rm(history.staged.temporary, { force: true });
        throw error;
      }
      if (interimRecord(change, history.unsynced)) await storage.files.replaceUnflushed(staged);
      else await storage.files.replace(staged);
    });
    if (voidsEndFile) await headLog.voidEnd(next.revision, headFiles);
    storage.listIndex.settle(id, placeOf(next));
    return { record: next, messages: written };
  }, fastPath.headFileOptions);
}

/**
 * Runs `read` (of the head's end file) holding the thread's lock. A writer stopped after it read the record,
 * whose lock was taken over meanwhile, may find the slot made void by the taker's move off the head: it
 * learns that its lock is lost (nothing landed), not that the store is damaged.
 */
export async function readHeldEnd<T>(read: () => Promise<T>, lease: Lease, lockPath: string): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!CorruptStoreError.isInstance(error) || lease.held()) throw error;
    throw new LockLostError(lockPath, {}, lease.writes === "segment" ? "append" : "commit");
  }
}

/** Waits for every one of `steps`, then throws the first failure: nothing is left running under the lock. */
async function allSettled(steps: Array<Promise<unknown>>): Promise<void> {
  const failed = (await Promise.allSettled(steps)).find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/**
 * What `commitChange` answers under a `"segment"` lock when the change needs a `"record"` one: it finds its
 * head sealed by a takeover it cannot finish itself, or an end for the head's end file that the record does
 * not say the head has yet (`StoredLogRecord.endFile`).
 */
export const NEEDS_RECORD_LOCK = Symbol("needs a record lock");

/**
 * Whether the change is an interim one (`LogChange.interim`, a streamed reply's begin) that may leave its record's
 * rename unflushed: a record-only change (no messages, head, event or history file), whose record content
 * is flushed before the rename, so a power loss leaves the record before it or after it, whole, and loses
 * only the begin. A change that writes anything else the record then names is committed durably.
 */
function interimRecord(change: LogChange, historyFiles: readonly string[]): boolean {
  const recordOnly = !change.append?.length && !change.newHead && !change.event && historyFiles.length === 0;
  return change.interim === true && recordOnly;
}

/**
 * What a change writes (`LockWrites`): a plain append leaves the record alone, and so does an append whose
 * only other change is the end (`storesEnd`: every encrypted append), under `"fsync"` durability: its end
 * goes into the head's end file (`head-end.ts`), overwritten in place, which a cut of the log does not cut
 * back (the head's log, append-only, would still show an earlier commit's end whole after a cut of the last
 * one). Its entries are guarded: they count once the end file (or the record) has their revision, so the
 * end file is written after them. Under `"batch"` durability an end so written could reach the disk before
 * the entries it names, so it rewrites the record, whose rename is flushed after them; so does an end too
 * long for the end file's slot.
 */
export function changeWrites(change: LogChange, durability: Durability): LockWrites {
  const rewritesRecord =
    change.newHead || change.event || change.metadata || change.context || change.operations;
  if (rewritesRecord) return "record";
  if (change.end === undefined) return "segment";
  const endInHead = durability === "fsync" && (change.append?.length ?? 0) > 0 && fitsHeadEnd(change.end);
  return endInHead ? "segment" : "record";
}

/**
 * The history file of the record after the change, not flushed yet: one event appended in place (the
 * file to flush in `unsynced`), or, for a record whose history is inline (a new thread, an old record),
 * the whole history in a staged file to flush and rename into place before the record.
 */
async function stageHistory(
  storage: FsStorage,
  stored: StoredLogRecord,
  next: LogRecord,
  lease: Lease,
): Promise<{ log: EventLog; unsynced: string[]; staged?: StagedFile }> {
  const log = stored.eventLog;
  if (!log) {
    const { staged, log: written } = await storage.records.stageEvents(next.id, next.events, lease.staging);
    return { log: written, unsynced: [staged.temporary], staged };
  }
  const added = next.events.slice(log.count);
  if (added.length === 0) return { log, unsynced: [] };
  const appended = storage.records.appendEvents(next.id, log, added, lease.staging);
  return { log: appended, unsynced: [storage.layout.eventsPath(next.id)] };
}

/** The record after the change: steps 2, 4 and 5 of `LogChange`, with `appended` new messages. */
function nextRecord(record: LogRecord, change: LogChange, headStart: number, appended: number, now: number) {
  const next: LogRecord = {
    ...record,
    revision: record.revision + 1,
    updatedAt: new Date(now).toISOString(),
  };
  const event = change.event && (JSON.parse(JSON.stringify(change.event)) as HistoryEvent);
  let start = headStart;
  if (change.newHead) {
    if (event?.kind === "rollback") event.from = endOf(record, headStart);
    next.head = change.newHead.id;
    next.length = change.newHead.start;
    start = change.newHead.start;
  }
  next.length += appended;
  if (event?.kind === "checkpoint") event.checkpoint.point = endOf(next, start);
  if (change.metadata) next.metadata = JSON.parse(JSON.stringify(change.metadata));
  if (change.context) next.context = JSON.parse(JSON.stringify(change.context));
  if (change.operations) next.operations = JSON.parse(JSON.stringify(change.operations));
  if (change.end !== undefined) next.end = change.end;
  if (event) {
    event.revision = next.revision;
    next.events = [...record.events, event];
  }
  return next;
}

/**
 * References the new record needs and the old one lacked (a new head segment, a rollback's target), made
 * durable together with the change's own files (`unsynced`) in one barrier, before anything points at them.
 */
async function addReferences(
  storage: FsStorage,
  id: string,
  before: LogRecord,
  after: LogRecord,
  change: LogChange,
  unsynced: readonly string[],
) {
  const needed = addedSegments(before, after, change.newHead?.id);
  if (needed.length === 0) {
    await storage.files.syncAll(unsynced);
    return;
  }
  const referrer = threadReferrer(id);
  await storage.locks.withLock(storage.layout.referencesLock, async () => {
    if (change.newHead) {
      await storage.segments.create(change.newHead, {
        owner: id,
        referrer,
        alsoRetain: needed,
        alsoSync: unsynced,
      });
      return;
    }
    for (const segment of needed) await storage.segments.retain(segment, referrer);
    await storage.files.syncAll(unsynced);
  });
}

/**
 * The segments `after` points at and `before` did not: a new head (made by this change, so new), and its
 * head and new events' points, each looked up among `before`'s from the newest event back. What a change
 * points at is nearly always the head or a recent event's point (a rollback to where the last one went), so
 * a commit does not pay for the whole history; only a segment the thread never pointed at is checked against
 * every event, once (from then on an event points at it).
 */
function addedSegments(before: LogRecord, after: LogRecord, newHead: string | undefined): string[] {
  const added = after.events.slice(before.events.length).flatMap(eventSegments);
  const candidates = new Set([after.head, ...added]);
  return [...candidates].filter((segment) => segment === newHead || !pointsAt(before, segment));
}

function pointsAt(record: LogRecord, segment: string): boolean {
  if (record.head === segment) return true;
  for (let index = record.events.length - 1; index >= 0; index--) {
    // An event of a kind a later version wrote points at nothing this version knows of (as before).
    const points: string[] | undefined = eventSegments(record.events[index] as HistoryEvent);
    if (points?.includes(segment)) return true;
  }
  return false;
}

function endOf(record: LogRecord, headStart: number): LogPoint {
  return { segment: record.head, offset: record.length - headStart, position: record.length };
}

/** The messages among the head's first `count` under ids of `items`, as stored. */
async function heldMessages(
  head: SegmentLog,
  files: SegmentReader,
  count: number,
  items: Message[],
): Promise<Message[]> {
  if (items.length === 0) return [];
  const found = await head.locate(
    items.map((message) => message.id),
    count,
    files,
  );
  return found.flatMap((entry) => (entry ? [entry.message] : []));
}

/** Gives `record` copies of the objects it shares with a carried record (`CarriedAppend.stored`). */
function ownObjects(record: LogRecord): void {
  record.metadata = structuredClone(record.metadata);
  if (record.context !== undefined) record.context = structuredClone(record.context);
  if (record.operations !== undefined) record.operations = structuredClone(record.operations);
}

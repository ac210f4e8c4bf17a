import { rm } from "node:fs/promises";
import type { Message } from "@skein/thread-core";
import { CorruptStoreError, LockLostError, LockOutcomeUnknownError } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import type { Lease } from "../locks/lease.js";
import { liveRecord, referencedSegments, type StoredLogRecord } from "../records/record-files.js";
import { threadEnd } from "../segments/head-end.js";
import { newSegmentId, type SegmentFile, threadReferrer } from "../segments/segment-directories.js";
import { withReader } from "../segments/segment-reader.js";
import { awaitSeal, claimSeal, dropSealEnd, publishSeal, sealState } from "./head-seal.js";

/** How many takeovers in a row a writer planning on an older head looks back through. */
const MAX_CONTINUATIONS = 8;

/**
 * Taking over the lock of an appender that may still run. The appender (A) may be stopped in the middle
 * of its positioned writes into the thread's head segment; when it resumes, it finishes them whatever
 * happened meanwhile. So the writer that took its lock over (B) never writes into that segment again:
 * 1. B claims the head's seal (`sealed`, created exclusively);
 * 2. then reads where the head's commits end, P: every commit A finished before it looked for the seal is
 *    seen, since A looks for it only after its commit is written;
 * 3. publishes P (`sealed-at`, flushed; the first publication wins);
 * 4. makes a new, empty head segment that continues the old one at P (as a fork would) and renames the
 *    thread's record onto it, under its own lock, which declares `"record"`.
 * A's lock may have declared `"record"` as well (a change that rewrites the record): the entries it wrote
 * into the head are guarded (counted once the record has their revision), so P lies before them unless its
 * record rename landed before the takeover, and that rename, through its staging directory, is fenced off
 * once B's takeover revoked it. A new head A made for its change is never referenced (a leak at worst).
 * Whatever A writes into the old segment later lies past P, where no reader reads: readers that read the
 * old record bound the head by the seal (`FsLogDriver`), readers of the new one stop at the new head's
 * base. A, after its commit is written and flushed and before it answers (`confirmAppend`), looks for the
 * seal: none, its commit preceded the claim, so P includes it; a seal, it waits for P and its commit
 * counts only if it lies before P, else it fails with `LockLostError` (nothing landed). A writer that
 * finds a head whose seal is claimed but not finished (B stopped or died on the way) finishes it.
 */
export async function moveOffSealedHead(
  storage: FsStorage,
  id: string,
  lease: Lease,
  options: { claim: boolean },
): Promise<void> {
  const stored = storage.records.readNow(id);
  if (stored?.kind !== "log") return;
  const directory = storage.layout.segmentDirectory(stored.head);
  if (options.claim) claimSeal(directory);
  let seal = sealState(directory);
  if (seal.state === "open" || seal.state === "gone") return;
  const head = await storage.segments.info(stored.head);
  if (!head) throw new CorruptStoreError(storage.layout.recordPath(id), "its head segment is missing");
  const log = storage.log(stored.head);
  if (seal.state === "claimed") {
    const { tail: visible, headEnd } = await log.visibleTail(stored);
    // The stopped writer may have written commits below the end without flushing them yet: they are
    // flushed here, before the end is made durable, so a power loss cannot leave the new head continuing
    // the old one past what the old one holds. The thread's end there is published with it: the stopped
    // writer may still overwrite the head's end file.
    await storage.files.syncFiles([log.paths.log, log.paths.index, log.paths.system]);
    const end = liveRecord(stored, head.start, visible, [], threadEnd(stored, headEnd)).end;
    publishSeal(directory, visible.count, storage.layout.temporary, end);
    seal = sealState(directory);
  }
  if (seal.state !== "sealed") throw new CorruptStoreError(directory, "its seal vanished once published");
  const sealedCount = seal.count;
  const tail = await withReader(log.paths, (reader) => reader.tail(sealedCount));
  // The record keeps the revision and time of the last commit before P: moving the head changes nothing
  // that readers see, so it is no revision of its own (a fenced writer's `ifRevision` still holds). It takes
  // the end the seal recorded (a seal published before end files were: the record's, which a record keeping
  // its end in the end file does not have).
  const end = seal.end ?? stored.end;
  if (stored.endFile && end === undefined)
    throw new CorruptStoreError(
      directory,
      "its seal does not hold the thread's end, which its head's end file kept",
    );
  const live = liveRecord(stored, head.start, tail, [], end);
  const segment: SegmentFile = {
    id: newSegmentId(),
    base: { segment: stored.head, offset: sealedCount },
    start: head.start + sealedCount,
    createdAt: new Date().toISOString(),
  };
  // The new head has no end file yet: the record no longer says it has (`endFile`); the next append makes it.
  const { endFile: _endFile, ...kept } = stored;
  const next: StoredLogRecord = {
    ...kept,
    head: segment.id,
    revision: live.revision,
    updatedAt: live.updatedAt,
    ...(end === undefined ? {} : { end }),
  };
  // A staged file of the lock's: this writer may lose its lock in turn (`StagingArea`).
  await lease.staging.guard("commit", async () => {
    const staged = storage.records.stage(next, lease.staging);
    try {
      await storage.locks.withLock(storage.layout.referencesLock, () =>
        storage.segments.create(segment, {
          owner: id,
          referrer: threadReferrer(id),
          continues: true,
          alsoSync: [staged.temporary],
        }),
      );
    } catch (error) {
      await rm(staged.temporary, { force: true });
      throw error;
    }
    await storage.files.replace(staged);
  });
  // The thread's end at the seal, in the old head's end file and in the seal, would outlive the commits made
  // on the new head: both are dropped (a crash before leaves them until a later takeover of none: a
  // documented limit), and readers still holding the old record read the record again.
  if (end !== undefined) {
    await log.withFiles((files) => log.voidEnd(live.revision, files));
    dropSealEnd(directory, storage.layout.temporary);
  }
  // The old head stays, as the new one's base; the thread's own reference to it goes unless its history
  // points there, so that deleting the thread reclaims it (a crash before this leaves it, a leak at worst).
  // Not by a writer that lost the lock meanwhile: the thread may be another's by then (a leak at worst).
  const events = await storage.records.events(stored);
  if (events && !referencedSegments({ head: segment.id, events }).has(stored.head)) {
    await storage.locks.withLock(storage.layout.referencesLock, async () => {
      if (lease.held()) await storage.segments.release(stored.head, threadReferrer(id));
    });
  }
}

/**
 * Called by an appender holding a `"segment"` lock after its commit (ending after `count` messages of
 * `head`) is written and flushed, before it answers: throws when its lock was taken over and the commit
 * does not count (see `moveOffSealedHead`). With no seal, this is one `stat` or two.
 */
export async function confirmAppend(
  storage: FsStorage,
  head: string,
  count: number,
  lockPath: string,
): Promise<void> {
  const directory = storage.layout.segmentDirectory(head);
  if (sealState(directory).state === "open") return;
  const started = Date.now();
  const seal = await awaitSeal(directory, storage.locks.settings.timeoutMs);
  if (seal.state === "sealed" && count <= seal.count) return;
  if (seal.state === "claimed") throw new LockOutcomeUnknownError(lockPath, Date.now() - started);
  throw new LockLostError(lockPath);
}

/**
 * The bases, newest first, through which `head` continues `expected` by takeovers (see
 * `moveOffSealedHead`), or undefined when it does not: a change planned on `expected` applies to such a
 * head as to `expected` itself, since a takeover changes nothing readers see.
 */
export async function continuedBases(
  storage: FsStorage,
  head: SegmentFile,
  expected: string,
): Promise<Array<{ segment: string; offset: number }> | undefined> {
  const bases: Array<{ segment: string; offset: number }> = [];
  let info: SegmentFile | undefined = head;
  for (let step = 0; step < MAX_CONTINUATIONS && info?.continues && info.base; step++) {
    bases.push(info.base);
    if (info.base.segment === expected) return bases;
    info = await storage.segments.info(info.base.segment);
  }
  return undefined;
}

/** The messages under ids of `items` that the continued segments hold before their continuation points. */
export async function heldInBases(
  storage: FsStorage,
  bases: ReadonlyArray<{ segment: string; offset: number }>,
  items: Message[],
): Promise<Message[]> {
  if (items.length === 0) return [];
  const ids = items.map((message) => message.id);
  const held: Message[] = [];
  for (const base of bases) {
    const found = await storage.log(base.segment).locate(ids, base.offset);
    for (const entry of found) if (entry) held.push(entry.message);
  }
  return held;
}

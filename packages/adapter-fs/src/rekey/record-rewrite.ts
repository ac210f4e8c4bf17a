import { rm } from "node:fs/promises";
import type { HistoryEvent } from "@skein/thread-core";
import type { RecordRewrite } from "@skein/thread-core/driver";
import { readHeldEnd } from "../commit/commit-change.js";
import { CorruptStoreError, LockLostError, missingEvents } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import type { Lease } from "../locks/lease.js";
import { liveRecord, type StoredLogRecord } from "../records/record-files.js";
import { fitsHeadEnd, type HeadEnd } from "../segments/head-end.js";
import { sealState } from "../takeover/head-seal.js";

/**
 * `LogDriver.rewriteRecord` on a file store: the record's sealed metadata, context, end and history events
 * are replaced only where each is still exactly as read, in one rename of the record file (staged through the
 * lock's staging area, so a takeover fences it off), keeping its revision. Rewritten events go into the
 * record itself, inline, as records of the first format keep them: one file replaced, so a reader sees the
 * old record with its history file or the new one with its history inside, never a record pointing at a
 * history it does not match. The thread's next commit moves them back to its history file (`stageHistory`).
 * An end kept in the head's end file (a record with `endFile`) is compared and replaced there, in place at its
 * revision, before the record's rename; one too long for the end file's slot goes into the record instead
 * (without the marker, at the end file's revision), and the end file is then made void. Call it holding the
 * thread's lock (`"record"`).
 */
export async function rewriteRecordFile(
  storage: FsStorage,
  id: string,
  rewrite: RecordRewrite,
  lease: Lease,
): Promise<boolean> {
  const stored = storage.records.readNow(id);
  if (stored?.kind !== "log") return false;
  const same = (held: unknown, expected: unknown) => JSON.stringify(held) === JSON.stringify(expected);
  const { metadata, context, end } = rewrite;
  const log = storage.log(stored.head);
  const lockPath = storage.layout.threadLockPath(id);
  const kept = stored.endFile
    ? await readHeldEnd(() => endFileCommit(storage, stored), lease, lockPath)
    : undefined;
  if (
    (metadata && !same(stored.metadata, metadata.expected)) ||
    (context && !same(stored.context, context.expected)) ||
    (end && (kept?.end ?? stored.end) !== end.expected)
  )
    return false;
  let events: HistoryEvent[] | undefined;
  if (rewrite.events.length > 0) {
    const current = await storage.records.events(stored);
    if (!current) throw missingEvents(storage.layout.eventsPath(id));
    if (rewrite.events.some(({ index, expected }) => !same(current[index], expected))) return false;
    events = [...current];
    for (const { index, replacement } of rewrite.events) events[index] = structuredClone(replacement);
  }
  // An end kept in the end file stays there when the new one fits; else it moves into the record.
  const endInFile = kept !== undefined && (!end || fitsHeadEnd(end.replacement));
  const { eventLog: _eventLog, events: inline, endFile: _endFile, rekeyed, ...fields } = stored;
  const next: StoredLogRecord = {
    ...fields,
    // A new record file at the same revision: the end file's slot names it by this as well.
    rekeyed: (rekeyed ?? 0) + 1,
    ...(endInFile ? { endFile: true as const } : {}),
    ...(kept && !endInFile ? { revision: kept.revision, updatedAt: kept.updatedAt } : {}),
    ...(end && !endInFile ? { end: end.replacement } : {}),
    ...(metadata ? { metadata: structuredClone(metadata.replacement) } : {}),
    ...(context ? { context: structuredClone(context.replacement) } : {}),
    ...(events ? { events } : stored.eventLog ? { eventLog: stored.eventLog } : { events: inline ?? [] }),
  };
  // The end file is given the new end first, at its own revision, so that no end under the old key is left in
  // it: a crash before the record's rename leaves the new end counting there, for the same length. A writer
  // whose lock was taken over meanwhile finds the head sealed after its write, as an appender does
  // (`confirmAppend`), and its change does not land. If the taker moved the thread off the head already, its
  // move made the slot void before this late write: it is made void again (an end at the sealed length must
  // not outlive the move); else the taker's move does it.
  if (end && kept && endInFile) {
    const slot = { ...kept.headEnd, recordRekeyed: next.rekeyed ?? 0, end: end.replacement };
    await log.withFiles(async (files) => {
      await log.writeEnd(slot, files);
      if (sealState(storage.layout.segmentDirectory(stored.head)).state === "open") return;
      const current = storage.records.readNow(id);
      if (current?.kind !== "log" || current.head !== stored.head) await log.voidEnd(kept.revision, files);
      throw new LockLostError(lockPath, {}, "commit");
    });
  }
  await lease.staging.guard("rekey", () =>
    storage.files.flushAndReplace(storage.records.stage(next, lease.staging, "rekey")),
  );
  if (kept && !endInFile) await log.withFiles((files) => log.voidEnd(kept.revision, files));
  if (events && stored.eventLog) {
    // The history file no record points at any more holds the events as they were sealed: a reader that
    // read the old record finds it gone and reads the record again (`FsLogDriver.#live`).
    await rm(storage.layout.eventsPath(id), { force: true });
    await storage.files.syncDirectory(storage.layout.records);
  }
  return true;
}

/**
 * The end a record with `endFile` keeps in its head's end file (`headEnd`), with the revision and time of the
 * thread's last commit, which the record takes when the end moves into it.
 */
async function endFileCommit(
  storage: FsStorage,
  stored: StoredLogRecord,
): Promise<{ headEnd: HeadEnd; end: string; revision: number; updatedAt: string }> {
  const { tail, headEnd } = await storage.log(stored.head).visibleTail(stored);
  const head = await storage.segments.info(stored.head);
  if (!head || !headEnd)
    throw new CorruptStoreError(storage.layout.recordPath(stored.id), "its head segment is missing");
  const live = liveRecord(stored, head.start, tail, [], headEnd.end);
  const revision = Math.max(live.revision, headEnd.revision);
  return { headEnd, end: headEnd.end, revision, updatedAt: live.updatedAt };
}

import { rm } from "node:fs/promises";
import type { HistoryEvent } from "@skein/thread-core";
import type { RecordRewrite } from "@skein/thread-core/driver";
import { missingEvents } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import type { Lease } from "../locks/lease.js";
import type { StoredLogRecord } from "../records/record-files.js";

/**
 * `LogDriver.rewriteRecord` on a file store: the record's sealed metadata, context, end and history events
 * are replaced only where each is still exactly as read, in one rename of the record file (staged through the
 * lock's staging area, so a takeover fences it off), keeping its revision. Rewritten events go into the
 * record itself, inline, as records of the first format keep them: one file replaced, so a reader sees the
 * old record with its history file or the new one with its history inside, never a record pointing at a
 * history it does not match. The thread's next commit moves them back to its history file (`stageHistory`).
 * Call it holding the thread's lock (`"record"`).
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
  if (
    (metadata && !same(stored.metadata, metadata.expected)) ||
    (context && !same(stored.context, context.expected)) ||
    (end && stored.end !== end.expected)
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
  const { eventLog: _eventLog, events: inline, ...fields } = stored;
  const next: StoredLogRecord = {
    ...fields,
    ...(metadata ? { metadata: structuredClone(metadata.replacement) } : {}),
    ...(context ? { context: structuredClone(context.replacement) } : {}),
    ...(end ? { end: end.replacement } : {}),
    ...(events ? { events } : stored.eventLog ? { eventLog: stored.eventLog } : { events: inline ?? [] }),
  };
  await lease.staging.guard("rekey", () =>
    storage.files.flushAndReplace(storage.records.stage(next, lease.staging, "rekey")),
  );
  if (events && stored.eventLog) {
    // The history file no record points at any more holds the events as they were sealed: a reader that
    // read the old record finds it gone and reads the record again (`FsLogDriver.#live`).
    await rm(storage.layout.eventsPath(id), { force: true });
    await storage.files.syncDirectory(storage.layout.records);
  }
  return true;
}

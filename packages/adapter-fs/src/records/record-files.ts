import { randomBytes } from "node:crypto";
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { open, readdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import type { HistoryEvent } from "@skein/thread-core";
import { eventSegments, type LogRecord, type StateRecord } from "@skein/thread-core/driver";
import { CorruptStoreError, hasCode } from "../errors.js";
import type { StagedOperation, StagingArea } from "../locks/staging-area.js";
import type { SegmentTail } from "../segments/segment-reader.js";
import type { DurableFiles, StagedFile } from "./durable-files.js";
import { readAt } from "./file-access.js";
import { decodeName, isHashedName } from "./file-names.js";
import type { StoreLayout } from "./store-layout.js";

/**
 * A local thread's record as stored. Appends do not rewrite it: the thread's length, and its revision and
 * updatedAt after appends, are read from the head segment's last commit (see `liveRecord`). Its history is
 * in a file of its own (`eventLog`), so a commit reads and writes only the few bytes of the record; records
 * written before that keep `events` inline until their next rewrite.
 */
export type StoredLogRecord = Omit<LogRecord, "length" | "events"> & {
  eventLog?: EventLog;
  events?: HistoryEvent[];
  /**
   * The head segment has an end file (`head-end.ts`) that holds the thread's end: the record then holds none
   * of its own (no older valid end beside the end file's). Set only by a record write that made sure the head
   * has one, flushed, before the record's rename; dropped by one that takes the end back into the record or
   * moves the head. A missing or void end file is then an error (`SegmentLog.readEnd`), never a silent cut.
   */
  endFile?: true;
  /**
   * How many key rotations rewrote the record at its revision (`rewriteRecordFile` keeps the revision): with
   * the revision, it names the record file an end file's slot was written on (`HeadEnd.recordRekeyed`).
   */
  rekeyed?: number;
};

/**
 * Where a record's history lies in records/<id>.events: after a first line holding `tag`, the first `count`
 * event lines, `bytes` long in all (tag line included). The record is the commit point: lines past `bytes`
 * (a writer stopped between the two writes) are ignored and cut off by the next event, and a fresh tag per
 * file tells a reader that the thread was deleted and made again under it.
 */
export interface EventLog {
  tag: string;
  count: number;
  bytes: number;
}
export type RecordFile = StoredLogRecord | StateRecord;

/** The small per-thread files under records/, each replaced whole (temp file + fsync + rename). */
export class RecordFiles {
  constructor(
    readonly layout: StoreLayout,
    readonly files: DurableFiles,
  ) {}

  /** The record under `id` (`readNow`), or undefined when there is none. */
  async read(id: string): Promise<RecordFile | undefined> {
    return this.readNow(id);
  }

  /**
   * The record, read at once, without the thread-pool round trips (about 15 µs for a record's few hundred
   * bytes, against four round trips of 100 µs or more under load).
   */
  readNow(id: string): RecordFile | undefined {
    const path = this.layout.recordPath(id);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
    const record = parseRecord(text, path);
    // Only a hashed name (a long id) could hold another id, and only if 160 bits of SHA-256 collided.
    if (record.id !== id) throw new CorruptStoreError(path, `it holds thread ${JSON.stringify(record.id)}`);
    return record;
  }

  /**
   * Replaces the record whole. With `staging` (a `"state"` lock's), the temporary file is a staged file of
   * the lock's and renamed from there, so a takeover fences the rename off (`LockLostError`, nothing
   * landed).
   */
  async write(record: RecordFile, staging?: StagingArea): Promise<void> {
    const path = this.layout.recordPath(record.id);
    const text = `${JSON.stringify(record)}\n`;
    if (!staging) return this.files.writeAtomically(path, text);
    await staging.guard("save", () => this.files.flushAndReplace(staging.stage("save", path, text)));
  }

  /**
   * Removes a state record through `staging` (a `"state"` lock's): renamed into the staging directory, so
   * a takeover that revoked it fences the removal off (`LockLostError`); it is unlinked there when the lock
   * is released (with the staging directory). Call it after reading the record under that lock.
   */
  async removeState(id: string, staging: StagingArea): Promise<void> {
    const path = this.layout.recordPath(id);
    // Read under the lock just before: a record missing now was removed by the writer that took it over.
    await staging.guard("delete", () => rename(path, this.files.temporaryPath(staging.directory("delete"))));
    await this.files.syncDirectory(this.layout.records);
  }

  /**
   * The record in a staged file of the lock's (so that a takeover fences its rename off), for a change
   * that flushes it with its other files and then `replace`s it, inside `staging.guard`.
   */
  stage(record: RecordFile, staging: StagingArea, operation: StagedOperation = "commit"): StagedFile {
    return staging.stage(operation, this.layout.recordPath(record.id), `${JSON.stringify(record)}\n`);
  }

  /**
   * Removes the record and its history through `staging` (the thread lock's): both are renamed into the
   * staging directory, so a takeover that revoked it fences the removal off (`LockLostError`, nothing
   * removed); they are unlinked when the lock is released. The record's removal is the commit point: a
   * history file left because the lock was lost right after it is harmless (a new thread under the id
   * writes its own before its record points at one) and is replaced by it. Call it after reading the
   * record under that lock.
   */
  async remove(id: string, staging: StagingArea): Promise<void> {
    await staging.guard("delete", () =>
      rename(this.layout.recordPath(id), this.files.temporaryPath(staging.directory("delete"))),
    );
    try {
      await rename(this.layout.eventsPath(id), this.files.temporaryPath(staging.path));
    } catch (error) {
      // No history file (a record whose history is inline), or the staging directory revoked meanwhile.
      if (!hasCode(error, "ENOENT")) throw error;
    }
    await this.files.syncDirectory(this.layout.records);
  }

  /**
   * Replaces the history file of `id` by a copy of the part its record commits (`eventLog.bytes`), staged
   * through `staging` (the lock's) and flushed: done by a writer that took the thread's lock over from one
   * that may still run. That writer may have opened the file to append events in place before it lost the
   * lock (`appendEvents`); its late writes now land in the old file, which no reader opens. Costs the
   * history's size, on a takeover only.
   */
  async rotateEvents(id: string, staging: StagingArea): Promise<void> {
    const stored = this.readNow(id);
    if (stored?.kind !== "log" || !stored.eventLog) return;
    const path = this.layout.eventsPath(id);
    let committed: Buffer;
    try {
      const handle = await open(path, "r");
      try {
        committed = await readAt(handle, stored.eventLog.bytes, 0);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (hasCode(error, "ENOENT")) return;
      throw error;
    }
    await staging.guard("commit", async () =>
      this.files.flushAndReplace(await staging.stageLarge("commit", path, committed)),
    );
  }

  /** The record's history; undefined when its file is gone or was made anew (the thread was deleted meanwhile). */
  async events(record: StoredLogRecord): Promise<HistoryEvent[] | undefined> {
    if (!record.eventLog) return record.events ?? [];
    const { tag, count, bytes } = record.eventLog;
    const path = this.layout.eventsPath(record.id);
    let text: string;
    try {
      const handle = await open(path, "r");
      try {
        text = (await readAt(handle, bytes, 0)).toString("utf8");
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
    const lines = text.split("\n");
    if (lines[0] !== tag) return undefined;
    if (Buffer.byteLength(text) !== bytes || lines.length !== count + 2 || lines[count + 1] !== "") {
      throw new CorruptStoreError(path, `it holds fewer than the ${count} events its record counts`);
    }
    try {
      return lines.slice(1, count + 1).map((line) => JSON.parse(line) as HistoryEvent);
    } catch {
      throw new CorruptStoreError(path, "an event line is not JSON");
    }
  }

  /**
   * A history in a new file, in a staged file of the lock's (`staging`), to flush and `replace` before the
   * record that points at it.
   */
  async stageEvents(
    id: string,
    events: HistoryEvent[],
    staging: StagingArea,
  ): Promise<{ staged: StagedFile; log: EventLog }> {
    const tag = randomBytes(12).toString("hex");
    const text = `${tag}\n${events.map((event) => `${JSON.stringify(event)}\n`).join("")}`;
    const staged = await staging.stageLarge("commit", this.layout.eventsPath(id), text);
    return { staged, log: { tag, count: events.length, bytes: Buffer.byteLength(text) } };
  }

  /**
   * Adds events after the ones `log` counts (cutting off any a stopped writer left), before the record.
   * They are part of the record's commit, so flushed in either durability: by the caller, in the barrier
   * that flushes the record's staged file (`eventsPath` is the file). A few hundred bytes to the page cache,
   * written at once, where the thread pool took four round trips (open, truncate, write, close).
   * The lock (`staging`'s) is checked after the file is opened and before it is written: a writer that took
   * the lock over rotates the file after its takeover (`rotateEvents`), so a check that passed opened the
   * file that is rotated away, and writes nothing a reader reads even if this process stops right after it.
   */
  appendEvents(id: string, log: EventLog, events: HistoryEvent[], staging: StagingArea): EventLog {
    const data = Buffer.from(events.map((event) => `${JSON.stringify(event)}\n`).join(""));
    const descriptor = openSync(this.layout.eventsPath(id), "r+");
    try {
      staging.check("commit");
      ftruncateSync(descriptor, log.bytes);
      let written = 0;
      while (written < data.length)
        written += writeSync(descriptor, data, written, data.length - written, log.bytes + written);
    } finally {
      closeSync(descriptor);
    }
    return { tag: log.tag, count: log.count + events.length, bytes: log.bytes + data.length };
  }

  /** Every record's id, decoded from file names; only long (hashed) names are opened to read the id. */
  async ids(): Promise<string[]> {
    const ids: string[] = [];
    for (const file of await readdir(this.layout.records)) {
      if (!file.endsWith(".json")) continue;
      const name = file.slice(0, -".json".length);
      const id = decodeName(name);
      if (id !== undefined) ids.push(id);
      else if (isHashedName(name)) {
        const record = await this.#readPath(join(this.layout.records, file));
        if (record) ids.push(record.id);
      }
    }
    return ids;
  }

  async #readPath(path: string): Promise<RecordFile | undefined> {
    try {
      return parseRecord(await readFile(path, "utf8"), path);
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
  }
}

function parseRecord(text: string, path: string): RecordFile {
  try {
    const record = JSON.parse(text) as RecordFile;
    if ((record.kind === "log" || record.kind === "state") && typeof record.id === "string") return record;
  } catch {
    // Reported below: records are renamed into place whole, so an unreadable one was damaged.
  }
  throw new CorruptStoreError(path, "it is not a thread record");
}

/**
 * The record as it stands: length, revision and updatedAt brought up to the head segment's last commit, and
 * its end the one given (`threadEnd`: its head's end file's, when the record says its head has one).
 */
export function liveRecord(
  stored: StoredLogRecord,
  headStart: number,
  tail: SegmentTail,
  events: HistoryEvent[],
  end: string | undefined = stored.end,
): LogRecord {
  const {
    eventLog: _eventLog,
    events: _inline,
    endFile: _endFile,
    rekeyed: _rekeyed,
    end: _end,
    ...fields
  } = stored;
  const record: LogRecord = { ...fields, length: headStart + tail.count, events };
  if (end !== undefined) record.end = end;
  if (tail.last && tail.last.revision > stored.revision) {
    record.revision = tail.last.revision;
    record.updatedAt = new Date(tail.last.committedAt).toISOString();
  }
  return record;
}

/**
 * A new thread's record as stored, its first events (a fork's one event, none for a new thread) inline: one
 * file to write instead of two. Its first change that records an event moves them to its `.events` file.
 */
export function inlineForm(record: LogRecord): StoredLogRecord {
  const { length: _length, ...stored } = record;
  return stored;
}

/**
 * A record in the form it is stored in, its history in `eventLog`.
 * @param endFile its head has an end file, flushed, that holds its end (`StoredLogRecord.endFile`): the
 * record then holds none.
 */
export function storedForm(record: LogRecord, eventLog: EventLog, endFile = false): StoredLogRecord {
  const { length: _length, events: _events, ...stored } = record;
  if (!endFile) return { ...stored, eventLog };
  const { end: _end, ...withoutEnd } = stored;
  return { ...withoutEnd, eventLog, endFile: true };
}

/** Every segment a record points at directly: its head and its history's points. */
export function referencedSegments(record: Pick<LogRecord, "head" | "events">): Set<string> {
  return new Set([record.head, ...record.events.flatMap(eventSegments)]);
}

/**
 * The caller's events, when its record is the stored one: the same head and revision, and as many events
 * as the record counts.
 */
export function knownEvents(
  known: LogRecord | undefined,
  live: Pick<LogRecord, "head" | "revision">,
  stored: StoredLogRecord,
): HistoryEvent[] | undefined {
  if (!known || known.head !== live.head || known.revision !== live.revision) return undefined;
  // A key rotation's rewrite puts events inline keeping the revision (`rewriteRecordFile`), so a caller's
  // copy of the same revision may hold them as they were sealed before: inline ones (in hand already, and
  // few but after a rewrite) are compared.
  if (!stored.eventLog && JSON.stringify(stored.events ?? []) !== JSON.stringify(known.events))
    return undefined;
  const count = stored.eventLog?.count ?? stored.events?.length ?? 0;
  return known.events.length === count ? known.events : undefined;
}

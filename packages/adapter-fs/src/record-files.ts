import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { HistoryEvent, LogRecord, StateRecord } from "@skein/thread-core";
import type { DurableFiles } from "./durable-files.js";
import { CorruptStoreError, hasCode } from "./errors.js";
import { decodeName, isHashedName } from "./file-names.js";
import type { SegmentTail } from "./segment-reader.js";
import type { StoreLayout } from "./store-layout.js";

/**
 * A local thread's record as stored. Appends do not rewrite it: the thread's length, and its revision and
 * updatedAt after appends, are read from the head segment's last commit (see `liveRecord`).
 */
export type StoredLogRecord = Omit<LogRecord, "length">;
export type RecordFile = StoredLogRecord | StateRecord;

/** The small per-thread files under records/, each replaced whole (temp file + fsync + rename). */
export class RecordFiles {
  constructor(
    readonly layout: StoreLayout,
    readonly files: DurableFiles,
  ) {}

  async read(id: string): Promise<RecordFile | undefined> {
    const path = this.layout.recordPath(id);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
    const record = parseRecord(text, path);
    // Only a hashed name (a long id) could hold another id, and only if 160 bits of SHA-256 collided.
    if (record.id !== id) throw new CorruptStoreError(path, `it holds thread ${JSON.stringify(record.id)}`);
    return record;
  }

  async write(record: RecordFile): Promise<void> {
    await this.files.writeAtomically(this.layout.recordPath(record.id), `${JSON.stringify(record)}\n`);
  }

  /** Removes the record; false if there was none. */
  async remove(id: string): Promise<boolean> {
    try {
      await rm(this.layout.recordPath(id));
    } catch (error) {
      if (hasCode(error, "ENOENT")) return false;
      throw error;
    }
    await this.files.syncDirectory(this.layout.records);
    return true;
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

/** The record as it stands: length, revision and updatedAt brought up to the head segment's last commit. */
export function liveRecord(stored: StoredLogRecord, headStart: number, tail: SegmentTail): LogRecord {
  const record: LogRecord = { ...stored, length: headStart + tail.count };
  if (tail.last && tail.last.revision > stored.revision) {
    record.revision = tail.last.revision;
    record.updatedAt = new Date(tail.last.committedAt).toISOString();
  }
  return record;
}

/** A record in the form it is stored in. */
export function storedForm(record: LogRecord): StoredLogRecord {
  const { length: _length, ...stored } = record;
  return stored;
}

/** Every segment a record points at directly: its head and its history's points. */
export function referencedSegments(record: Pick<LogRecord, "head" | "events">): Set<string> {
  return new Set([record.head, ...record.events.flatMap(eventSegments)]);
}

function eventSegments(event: HistoryEvent): string[] {
  switch (event.kind) {
    case "checkpoint":
      return [event.checkpoint.point.segment];
    case "rollback":
      return [event.from.segment, event.to.segment];
    case "fork":
      return [event.from.segment];
  }
}

import { closeSync, fstatSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { uptime } from "node:os";
import { join } from "node:path";
import { hasCode } from "../errors.js";
import type { DurableFiles } from "../records/durable-files.js";
import { type CataloguePlaces, readPlace, storePlace } from "./catalogue-place.js";

/** One line of the journal: a thread and the places it may be at from then on. */
export interface JournalLine {
  id: string;
  places: CataloguePlaces;
}

/** The catalogue as a process had it after the journal's first `offset` bytes, written by this boot. */
export interface CatalogueSnapshot {
  boot: string;
  offset: number;
  threads: Array<[string, CataloguePlaces]>;
}

const SNAPSHOT_FORMAT = "skein-fs-catalogue";
/** Version 2 keeps each thread's own expiry; a snapshot of version 1 (none) is rebuilt from the records. */
const SNAPSHOT_VERSION = 2;

/**
 * The catalogue's files, `catalogue/journal` and `catalogue/snapshot.json`. Every change to a record is
 * announced by one line appended to the journal under the thread's lock, before the change can land:
 * `{ b: boot, i: id, p: places }`, the places being where the thread is after the change and where it was
 * before (`null`: no record). So after any crash the last line of a thread names where it is. A line is
 * one `write` to a file opened for appending (each lands whole after the others'); it starts and ends with
 * a newline, so a line torn by a crash of the machine never runs into the next, and a reader reads only up
 * to the last newline (a line being written is read next time). Lines are not flushed: a line is lost
 * only with the machine, so each line carries the boot it was written in, and a process that finds lines
 * of an earlier boot rebuilds the catalogue from the records (`FsCatalogue`).
 */
export class CatalogueJournal {
  readonly path: string;
  readonly snapshotPath: string;
  #descriptor: number | undefined;

  constructor(
    readonly directory: string,
    readonly files: DurableFiles,
  ) {
    this.path = join(directory, "journal");
    this.snapshotPath = join(directory, "snapshot.json");
  }

  /** Appends one line (at once, not through the thread pool: a few bytes to the page cache). */
  append(line: JournalLine): void {
    const text = `\n${JSON.stringify({ b: currentBoot(), i: line.id, p: line.places.map(storePlace) })}\n`;
    writeSync(this.#open(), text);
  }

  /** The journal's size now. */
  size(): number {
    return fstatSync(this.#open()).size;
  }

  /**
   * The whole lines written from `offset` on, each with the boot it was written in, and the offset after
   * the last one. Read at once, so that two walks of one process never apply lines out of order.
   */
  read(offset: number): { lines: Array<JournalLine & { boot: string }>; end: number } {
    const descriptor = this.#open();
    const size = fstatSync(descriptor).size;
    if (size <= offset) return { lines: [], end: offset };
    const buffer = Buffer.alloc(size - offset);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(descriptor, buffer, read, buffer.length - read, offset + read);
      if (count === 0) break;
      read += count;
    }
    const last = buffer.lastIndexOf(10, read - 1);
    if (last < 0) return { lines: [], end: offset };
    const lines: Array<JournalLine & { boot: string }> = [];
    for (const text of buffer.toString("utf8", 0, last).split("\n")) {
      const line = parseLine(text);
      if (line) lines.push(line);
    }
    return { lines, end: offset + last + 1 };
  }

  /** The snapshot, or undefined when there is none or it cannot be read (then the records are read). */
  readSnapshot(): CatalogueSnapshot | undefined {
    let text: string;
    try {
      text = readFileSync(this.snapshotPath, "utf8");
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
    try {
      const value = JSON.parse(text) as Record<string, unknown>;
      if (value.format !== SNAPSHOT_FORMAT || value.version !== SNAPSHOT_VERSION) return undefined;
      if (typeof value.boot !== "string" || !Number.isSafeInteger(value.offset)) return undefined;
      if (!Array.isArray(value.threads)) return undefined;
      const threads: Array<[string, CataloguePlaces]> = [];
      for (const item of value.threads) {
        const places = Array.isArray(item) && typeof item[0] === "string" && readPlaces(item[1]);
        if (!places) return undefined;
        threads.push([item[0], places]);
      }
      return { boot: value.boot, offset: value.offset as number, threads };
    } catch {
      return undefined;
    }
  }

  /** Replaces the snapshot whole (written aside, flushed, renamed): any process's snapshot is as good. */
  async writeSnapshot(snapshot: CatalogueSnapshot): Promise<number> {
    const text = JSON.stringify({
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      boot: snapshot.boot,
      offset: snapshot.offset,
      threads: snapshot.threads.map(([id, places]) => [id, places.map(storePlace)]),
    });
    await this.files.writeAtomically(this.snapshotPath, text);
    return text.length;
  }

  close(): void {
    if (this.#descriptor !== undefined) closeSync(this.#descriptor);
    this.#descriptor = undefined;
  }

  #open(): number {
    this.#descriptor ??= openSync(this.path, "a+");
    return this.#descriptor;
  }
}

function parseLine(text: string): (JournalLine & { boot: string }) | undefined {
  if (text.length === 0) return undefined;
  try {
    const value = JSON.parse(text) as { b?: unknown; i?: unknown; p?: unknown };
    const places = readPlaces(value.p);
    if (typeof value.b !== "string" || typeof value.i !== "string" || !places) return undefined;
    return { boot: value.b, id: value.i, places };
  } catch {
    return undefined; // torn by a crash of the machine: the line after it starts on its own
  }
}

function readPlaces(value: unknown): CataloguePlaces | undefined {
  if (!Array.isArray(value)) return undefined;
  const places = value.map(readPlace);
  return places.every((place) => place !== undefined) ? places : undefined;
}

let boot: string | undefined;

/**
 * This boot of the machine: Linux's boot id, else the time it booted to ten seconds. A line of another
 * boot may have lost its successors with the machine (lines are not flushed).
 */
export function currentBoot(): string {
  if (boot !== undefined) return boot;
  try {
    boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim().slice(0, 8);
  } catch {
    boot = String(Math.round((Date.now() / 1000 - uptime()) / 10));
  }
  return boot;
}

import type { FileHandle } from "node:fs/promises";
import type { Message } from "@skein/thread-core";
import { CorruptStoreError } from "../errors.js";
import { openIfExists, readAt, readAtNow, sizeNow } from "../records/file-access.js";
import { checksum } from "./checksum.js";
import {
  decodeEntry,
  ENTRY_SIZE,
  EntryFlag,
  entryIdHash,
  ID_HASH_FIELD,
  type IndexEntry,
} from "./index-entry.js";
import type { CachedFile, SegmentFileCache } from "./segment-file-cache.js";

/** The committed end of a segment: its last whole commit. */
export interface SegmentTail {
  /** How many messages are committed. */
  count: number;
  /** Where the last committed line ends in `messages.jsonl`. */
  end: number;
  /** The last committed message's entry. */
  last: IndexEntry | undefined;
}

export interface SegmentPaths {
  log: string;
  index: string;
  buckets: string;
  system: string;
  /** The end file (`head-end.ts`): a thread's head only, once an append kept its end there. */
  end: string;
}

export const EMPTY_TAIL: SegmentTail = { count: 0, end: 0, last: undefined };
const SCAN_CHUNK = 256;
/** Ranges of at most this many entries (2.5 KB) are read without a thread-pool round trip. */
const DIRECT_ENTRIES = 64;

/**
 * A segment's files opened for reading for the length of one operation, so that its many small reads
 * (entries, bucket slots, single lines) share one file handle per file.
 */
export class SegmentReader {
  readonly #handles = new Map<string, Promise<FileHandle | undefined>>();
  /** The files checked out of `cache`, to give back at `close`. */
  readonly #checkedOut: Array<Promise<CachedFile | undefined>> = [];
  /** The last `idHashes` read, for the next call with the same range (see there). */
  #idHashes: { from: number; to: number; hashes: Promise<Array<number | undefined>> } | undefined;

  /**
   * @param writable open the files for writing too ("r+"), so that a commit reads and writes its segment
   * through one handle per file instead of opening them again for each step.
   * @param cache the store's open segment files, kept open across operations; without it, the files are
   * opened here and closed at `close`.
   * @param trusted the cached files are known to be the segment's (`SegmentFileCache.checkout`).
   */
  constructor(
    readonly paths: SegmentPaths,
    readonly writable = false,
    readonly cache?: SegmentFileCache,
    readonly trusted = false,
  ) {}

  /** The open file, or undefined when it does not exist. */
  handle(path: string): Promise<FileHandle | undefined> {
    let handle = this.#handles.get(path);
    if (!handle) {
      const flags = this.writable ? "r+" : "r";
      if (this.cache) {
        const file = this.cache.checkout(path, flags, this.trusted);
        this.#checkedOut.push(file);
        handle = file.then((checkedOut) => checkedOut?.handle);
      } else handle = openIfExists(path, flags);
      this.#handles.set(path, handle);
    }
    return handle;
  }

  /** The last whole commit among the first `limit` entries (all of them by default). */
  async tail(limit = Number.POSITIVE_INFINITY): Promise<SegmentTail> {
    const handle = await this.handle(this.paths.index);
    if (!handle) return EMPTY_TAIL;
    let high = Math.min(limit, Math.floor(sizeNow(handle) / ENTRY_SIZE));
    // Usually the last entry ends a commit: read it alone first (at once: 40 bytes), then scan back in chunks.
    let chunk = 1;
    while (high > 0) {
      const low = Math.max(0, high - chunk);
      const bytes =
        chunk === 1
          ? readAtNow(handle, ENTRY_SIZE, low * ENTRY_SIZE)
          : await readAt(handle, (high - low) * ENTRY_SIZE, low * ENTRY_SIZE);
      for (let index = high - 1; index >= low; index--) {
        const entry = decodeEntry(bytes, (index - low) * ENTRY_SIZE);
        if (entry && entry.flags & EntryFlag.commitEnd)
          return { count: index + 1, end: entry.end, last: entry };
      }
      high = low;
      chunk = SCAN_CHUNK;
    }
    return EMPTY_TAIL;
  }

  /** Entries [from, to); undefined where an entry is not whole. */
  entries(from: number, to: number): Promise<Array<IndexEntry | undefined>> {
    return this.#decodeEntries(from, to, decodeEntry);
  }

  /**
   * The id hashes of entries [from, to), undefined where an entry is not whole. A commit's id lookups and its
   * bucket link both read the committed entries the buckets do not cover yet (up to LINK_LAG): the second
   * call with the same range gets the first one's. That is safe for one operation: entries below the
   * committed end change only when a repair cuts them off, which happens before any lookup, and a commit
   * writes its entries past `to`.
   */
  idHashes(from: number, to: number): Promise<Array<number | undefined>> {
    const kept = this.#idHashes;
    if (kept && kept.from === from && kept.to === to) return kept.hashes;
    const hashes = this.#readIdHashes(from, to);
    this.#idHashes = { from, to, hashes };
    return hashes;
  }

  /**
   * Makes `idHashes(from, to)` answer `hashes` without reading them: what the holder of the segment's lock
   * knows of its own entries (`SegmentLog.append`, `SegmentLog.withFiles`'s `knownIds`).
   */
  knowIdHashes(from: number, to: number, hashes: Array<number | undefined>): void {
    this.#idHashes = { from, to, hashes: Promise.resolve(hashes) };
  }

  #readIdHashes(from: number, to: number): Promise<Array<number | undefined>> {
    return this.#decodeEntries(from, to, entryIdHash);
  }

  /** Entries [from, to), each decoded by `decode` from the index's bytes at its position. */
  async #decodeEntries<T>(from: number, to: number, decode: (bytes: Buffer, at: number) => T): Promise<T[]> {
    const handle = await this.handle(this.paths.index);
    if (!handle || to <= from) return [];
    const length = (to - from) * ENTRY_SIZE;
    // A commit's few entries are read at once; long ranges go through the thread pool.
    const bytes =
      to - from <= DIRECT_ENTRIES
        ? readAtNow(handle, length, from * ENTRY_SIZE)
        : await readAt(handle, length, from * ENTRY_SIZE);
    return Array.from({ length: Math.floor(bytes.length / ENTRY_SIZE) }, (_, index) =>
      decode(bytes, index * ENTRY_SIZE),
    );
  }

  /** The entry at `offset`, read at once (`readAtNow`); undefined where it is not whole. */
  async entryNow(offset: number): Promise<IndexEntry | undefined> {
    const handle = await this.handle(this.paths.index);
    return handle && decodeEntry(readAtNow(handle, ENTRY_SIZE, offset * ENTRY_SIZE), 0);
  }

  /**
   * Offsets below `before` whose entry's id hash is one of `hashes`, read straight through the index. Only
   * the hash field is read; the caller confirms candidates against their lines.
   */
  async scanIdHashes(hashes: ReadonlySet<number>, before: number): Promise<Map<number, number[]>> {
    const found = new Map<number, number[]>();
    const handle = await this.handle(this.paths.index);
    if (!handle) return found;
    for (let from = 0; from < before; from += SCAN_CHUNK * 16) {
      const bytes = await readAt(
        handle,
        (Math.min(before, from + SCAN_CHUNK * 16) - from) * ENTRY_SIZE,
        from * ENTRY_SIZE,
      );
      for (let position = 0; position + ENTRY_SIZE <= bytes.length; position += ENTRY_SIZE) {
        const hash = bytes.readUInt32LE(position + ID_HASH_FIELD);
        if (hashes.has(hash)) found.set(hash, [from + position / ENTRY_SIZE, ...(found.get(hash) ?? [])]);
      }
    }
    return found;
  }

  /** Messages [from, to), which the caller knows are committed; each line is checked against its entry. */
  async messages(from: number, to: number): Promise<Message[]> {
    if (from >= to) return [];
    const entries = await this.entries(Math.max(0, from - 1), to);
    const own = (from > 0 ? entries.slice(1) : entries) as IndexEntry[];
    const start = from > 0 ? entries[0]?.end : 0;
    if (start === undefined || own.length !== to - from || own.some((entry) => entry === undefined)) {
      throw new CorruptStoreError(
        this.paths.index,
        `the entries of messages ${from}–${to - 1} are not whole`,
      );
    }
    const log = await this.handle(this.paths.log);
    if (!log) throw new CorruptStoreError(this.paths.log, "the message log is missing");
    const bytes = await readAt(log, (own[own.length - 1] as IndexEntry).end - start, start);
    let position = 0;
    return own.map((entry, index) => {
      const line = bytes.subarray(position, entry.end - start);
      position = entry.end - start;
      if (line[line.length - 1] !== 0x0a || checksum(line) !== entry.lineChecksum) {
        throw new CorruptStoreError(this.paths.log, `message ${from + index} does not match its checksum`);
      }
      return JSON.parse(line.toString("utf8")) as Message;
    });
  }

  async close(): Promise<void> {
    const handles = [...this.#handles.values()];
    this.#handles.clear();
    if (this.cache) {
      const cache = this.cache;
      const checkedOut = this.#checkedOut.splice(0);
      for (const file of checkedOut) {
        void file.then((opened) => opened && cache.checkin(opened)).catch(() => undefined);
      }
      return;
    }
    // Every read and write through them is done (and flushed where it had to be): the closes need not
    // hold up the caller, who would otherwise wait for a thread-pool round trip behind other fsyncs.
    for (const handle of handles) {
      void handle.then((opened) => opened?.close()).catch(() => undefined);
    }
  }
}

/**
 * Runs `task` with a reader on the segment's files, closing them (or giving them back to `options.cache`)
 * afterwards. With a cache, it first waits for one of the store's turns to hold segment files
 * (`SegmentFileCache.lease`; `overdraft` takes one at once, for a segment opened while holding another).
 */
export async function withReader<T>(
  paths: SegmentPaths,
  task: (reader: SegmentReader) => Promise<T>,
  options: { writable?: boolean; cache?: SegmentFileCache; overdraft?: boolean; trusted?: boolean } = {},
): Promise<T> {
  const release = await options.cache?.lease(options.overdraft);
  const reader = new SegmentReader(paths, options.writable, options.cache, options.trusted);
  try {
    return await task(reader);
  } finally {
    await reader.close();
    release?.();
  }
}

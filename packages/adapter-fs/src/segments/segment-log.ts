import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { Message } from "@skein/thread-core";
import { CorruptStoreError } from "../errors.js";
import type { DurableFiles } from "../records/durable-files.js";
import { readAt, readAtNow, sizeNow, writeThrough } from "../records/file-access.js";
import { hasSwapMark, settleSwap } from "../rekey/segment-swap.js";
import { checksum } from "./checksum.js";
import {
  confirmedRevision,
  decodeHeadEnd,
  encodeHeadEnd,
  HEAD_END_FILE,
  HEAD_END_SLOT,
  type HeadEnd,
} from "./head-end.js";
import { IdBuckets, LINK_LAG } from "./id-buckets.js";
import { ENTRY_SIZE, EntryFlag, encodeEntry, hashMessageId, type IndexEntry } from "./index-entry.js";
import type { SegmentFileCache } from "./segment-file-cache.js";
import { type SegmentPaths, type SegmentReader, type SegmentTail, withReader } from "./segment-reader.js";

/** How many times a slot that fails its checksum is read before it is reported (`SegmentLog.readEnd`). */
const TORN_READS = 8;

/**
 * What the id buckets leave unlinked below `count`: the watermark and the id hashes of the entries from it,
 * as the holder of the segment's lock knows them after its append (`SegmentLog.knownIds`).
 */
export interface KnownIds {
  count: number;
  watermark: number;
  lagging: Array<number | undefined>;
}

export interface CommitStamp {
  revision: number;
  committedAt: number;
  /** The commit also rewrites the thread record, and counts only once the record has `revision`. */
  guarded: boolean;
}

const SYSTEM_OFFSET_SIZE = 4;
/**
 * A batch of ids this large against a segment at most this many times longer is looked up by reading the
 * index's id hashes straight through: one sequential read beats thousands of small bucket probes, and its
 * cost stays proportional to the batch.
 */
const SCAN_RATIO = 8192;
const MIN_SCANNED_BATCH = 16;

/**
 * One segment's messages on disk. `messages.jsonl` holds one JSON line per message and only ever grows;
 * `index.bin` holds a fixed-width entry per message (where its line ends, its checksum, the commit's
 * revision), so reading messages [from, to) reads only their entries and their lines. A commit is visible
 * once its last entry, flagged `commitEnd`, is whole: the lines are written (and fsynced) before the
 * entries, so an entry never points at bytes that are not there. Whatever lies past the last whole commit
 * (a writer killed mid-append) is ignored by readers and cut off by the next writer.
 */
export class SegmentLog {
  readonly paths: SegmentPaths;
  readonly #buckets: IdBuckets;

  /**
   * @param cache the store's open segment files (`SegmentFileCache`), kept open across operations; none for
   * a segment being built in tmp/, whose path changes when it is renamed into place.
   */
  constructor(
    readonly directory: string,
    readonly files: DurableFiles,
    readonly cache?: SegmentFileCache,
  ) {
    this.paths = {
      log: join(directory, "messages.jsonl"),
      index: join(directory, "index.bin"),
      buckets: join(directory, "buckets.bin"),
      system: join(directory, "system.bin"),
      end: join(directory, HEAD_END_FILE),
    };
    this.#buckets = new IdBuckets(this.paths.buckets, files);
  }

  /**
   * The last whole commit.
   * @param files the segment's files, already open (`withFiles`); opened here when not given.
   */
  tail(files?: SegmentReader): Promise<SegmentTail> {
    return files ? files.tail() : withReader(this.paths, (reader) => reader.tail(), { cache: this.cache });
  }

  /**
   * The tail a thread whose record is `record` sees, and its head's end file when the record says it has one
   * (`endFile`: an encrypted thread's, whose end is kept there): a guarded commit counts once the record or
   * the end file has its revision. The end file is read before the tail, and commits past the one it names
   * are cut off, so an end never goes with a tail it was not written for, however many appends land between
   * the two reads.
   */
  visibleTail(record: { revision: number; endFile?: true }): Promise<HeadState> {
    return withReader(
      this.paths,
      async (reader) => {
        const headEnd = record.endFile ? await this.readEnd(reader) : undefined;
        const tail = await visibleTail(reader, confirmedRevision(record.revision, headEnd));
        return { tail, headEnd };
      },
      { cache: this.cache },
    );
  }

  /**
   * The end file's slot (`head-end.ts`), for a record that says its head has one: a missing end file, or a
   * void slot, is then the thread's end gone (removed, or a copy restored without it; or the record read
   * before a record write took the end back), reported as `CorruptStoreError`, never read as an older end.
   * A slot that fails its checksum is read again a few times first: a read without the lock may meet an
   * append overwriting it (a read and an in-place write of the same bytes are not atomic to each other).
   */
  async readEnd(files: SegmentReader): Promise<HeadEnd> {
    const handle = await files.handle(this.paths.end);
    if (!handle) {
      throw new CorruptStoreError(
        this.paths.end,
        "the thread's end is missing though its record says its head holds it (removed, or restored from a copy without it); restore the file from the same copy as the thread's record",
      );
    }
    for (let attempt = 1; ; attempt++) {
      const slot = decodeHeadEnd(readAtNow(handle, HEAD_END_SLOT, 0));
      if (slot && slot.end !== "") return slot;
      if (slot)
        throw new CorruptStoreError(this.paths.end, "its end was taken back into the thread's record");
      if (attempt === TORN_READS) {
        throw new CorruptStoreError(
          this.paths.end,
          `its end slot does not match its checksum (read ${TORN_READS} times)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, attempt));
    }
  }

  /**
   * Writes `headEnd` into the end file's one slot, in place, and flushes it: the commit point of an append
   * whose entries (guarded) are flushed already. A head that has none gets it whole (a file written,
   * flushed and renamed into place), once. Call it with an end that fits (`fitsHeadEnd`).
   */
  async writeEnd(headEnd: HeadEnd, files: SegmentReader): Promise<void> {
    const bytes = encodeHeadEnd(headEnd);
    if (!bytes) throw new RangeError(`an end of ${headEnd.end.length} characters does not fit the end file`);
    const handle = await files.handle(this.paths.end);
    if (!handle) return this.files.writeAtomically(this.paths.end, bytes);
    await writeThrough(handle, bytes, 0);
    await this.files.syncAppend(handle, this.paths.end);
  }

  /**
   * Makes the end file's slot void (at `revision`), flushed, once a record write took the thread's end back
   * into the record or moved the thread off this head: no older end is left beside the current one. A crash
   * before it leaves the slot whole until the thread's next record write (`voidLeftEnd`); readers of a record
   * without the `endFile` marker do not read it meanwhile.
   */
  async voidEnd(revision: number, files: SegmentReader): Promise<void> {
    const handle = await files.handle(this.paths.end);
    if (!handle) return;
    await writeThrough(
      handle,
      encodeHeadEnd({ revision, recordRevision: revision, recordRekeyed: 0, end: "" }) as Buffer,
      0,
    );
    await this.files.syncAppend(handle, this.paths.end);
  }

  /**
   * Makes void a slot a crash left whole beside a record that holds its end (between that record's rename and
   * its `voidEnd`). Call it holding the thread's lock.
   */
  async voidLeftEnd(revision: number, files: SegmentReader): Promise<void> {
    const handle = await files.handle(this.paths.end);
    if (!handle) return;
    const slot = decodeHeadEnd(readAtNow(handle, HEAD_END_SLOT, 0));
    if (slot?.end !== "") await this.voidEnd(revision, files);
  }

  /**
   * Committed messages with offsets in [from, to).
   * @param files the segment's files, already open (`withFiles`); opened here when not given.
   */
  readMessages(from: number, to: number, files?: SegmentReader): Promise<Message[]> {
    const run = async (reader: SegmentReader) => {
      const { count } = await reader.tail();
      return reader.messages(Math.max(0, from), Math.min(to, count));
    };
    return files ? run(files) : withReader(this.paths, run, { cache: this.cache });
  }

  /** Where each message id is among the first `before` messages, with the message as stored. */
  locate(
    messageIds: string[],
    before: number,
    files?: SegmentReader,
  ): Promise<Array<{ offset: number; message: Message } | undefined>> {
    const run = async (reader: SegmentReader) => {
      if (messageIds.length < MIN_SCANNED_BATCH || messageIds.length * SCAN_RATIO < before) {
        return Promise.all(messageIds.map((messageId) => this.#locate(reader, messageId, before)));
      }
      const hashes = messageIds.map(hashMessageId);
      const candidates = await reader.scanIdHashes(new Set(hashes), before);
      return Promise.all(
        messageIds.map((messageId, index) =>
          confirm(reader, messageId, candidates.get(hashes[index] as number) ?? []),
        ),
      );
    };
    return files ? run(files) : withReader(this.paths, run, { cache: this.cache });
  }

  /** Offsets below `before` of system messages. */
  systemOffsets(before: number): Promise<number[]> {
    return withReader(
      this.paths,
      async (reader) => (await readSystemOffsets(reader)).filter((offset) => offset < before),
      { cache: this.cache },
    );
  }

  /**
   * Runs `task` with the segment's files open for reading and writing, so that one commit's repair, id
   * lookups and append share one handle per file.
   * @param options.overdraft take the turn at once (`SegmentFileCache.lease`): for a caller holding a lock
   * that a holder of a turn may be waiting for (an import under the references lock), which must never
   * wait for a turn.
   * @param options.trusted the cached files are known to be the segment's (`SegmentFileCache.checkout`).
   * @param options.knownIds what the id buckets leave unlinked, known by the lock's holder (`knownIds`): not read.
   */
  withFiles<T>(
    task: (files: SegmentReader) => Promise<T>,
    options: { overdraft?: boolean; trusted?: boolean; knownIds?: KnownIds } = {},
  ): Promise<T> {
    const { knownIds, ...open } = options;
    // A rewrite (key rotation) that stopped half-way is settled before anything is written: its holder held
    // this lock too. A carried (trusted) holding held the lock since its last settle.
    if (!options.trusted && hasSwapMark(this.directory)) {
      return settleSwap(this.directory, this.files).then(() => this.withFiles(task, options));
    }
    const run = (reader: SegmentReader) => {
      if (knownIds) {
        this.#buckets.knowWatermark(reader, knownIds.watermark);
        reader.knowIdHashes(knownIds.watermark, knownIds.count, knownIds.lagging);
      }
      return task(reader);
    };
    return withReader(this.paths, run, { writable: true, cache: this.cache, ...open });
  }

  /**
   * What the id buckets leave unlinked below `count`, after an append through `files` that ended there: read
   * only if the append did not learn it (see `append`).
   */
  async knownIds(files: SegmentReader, count: number): Promise<KnownIds> {
    const watermark = await this.#buckets.watermark(files);
    return { count, watermark, lagging: await files.idHashes(watermark, count) };
  }

  /**
   * Cuts off what a stopped writer left past the last commit (torn lines, entries, system offsets) and links
   * committed entries the id buckets miss once LINK_LAG of them wait. Call it holding the segment's lock,
   * before `append`.
   * @param recordRevision for a thread's head, the revision up to which its guarded commits count (the
   * record's, or its end file's when newer: `confirmedRevision`): a guarded commit past it is cut off too.
   * @param files the segment's files, open for writing (`withFiles`); opened here when not given.
   */
  repair(recordRevision?: number, files?: SegmentReader): Promise<SegmentTail> {
    return this.#with(files, async (reader) => {
      const committed = await reader.tail();
      let tail =
        recordRevision === undefined ? committed : await unconfirmedCut(reader, committed, recordRevision);
      const log = await this.#open(reader, this.paths.log);
      const index = await this.#open(reader, this.paths.index);
      const logSize = sizeNow(log);
      // Entries whose lines a power failure took or garbled ("batch" durability) go with them.
      while (tail.count > 0 && (tail.end > logSize || !(await this.#lastLineIntact(reader, tail)))) {
        tail = await reader.tail(tail.count - 1);
      }
      // Committed entries about to go may have been linked: the buckets let go of them first.
      if (tail.count < committed.count) await this.#buckets.unlink(reader, tail.count, committed.count);
      if (sizeNow(index) > tail.count * ENTRY_SIZE)
        await this.#truncate(index, this.paths.index, tail.count * ENTRY_SIZE);
      if (logSize > tail.end) await this.#truncate(log, this.paths.log, tail.end);
      const system = await reader.handle(this.paths.system);
      const kept = system && (await keptSystemOffsets(system, tail.count));
      if (system && kept !== undefined)
        await this.#truncate(system, this.paths.system, kept * SYSTEM_OFFSET_SIZE);
      await this.#buckets.catchUp(reader, tail.count, { lag: LINK_LAG });
      return tail;
    });
  }

  /**
   * Appends `messages` as one commit after `tail` (what `repair` returned); returns the new tail. The lines
   * (and system offsets) are flushed before the entries that point at them are written, and the entries
   * are flushed before it returns: two fdatasyncs, the least that keeps an entry from ever pointing at
   * bytes that are not on disk; a guarded commit's (`CommitStamp.guarded`) side by side, as it counts only
   * once the record confirms it. The id buckets are written only every LINK_LAG entries.
   * @param texts each message's JSON, when the caller has it already.
   */
  async append(
    messages: Message[],
    stamp: CommitStamp,
    tail: SegmentTail,
    files?: SegmentReader,
    texts?: readonly string[],
  ): Promise<SegmentTail> {
    return this.#with(files, async (reader) => {
      const lines = messages.map((message, index) =>
        Buffer.from(`${texts?.[index] ?? JSON.stringify(message)}\n`, "utf8"),
      );
      const system = messages.flatMap((message, index) =>
        message.role === "system" ? [tail.count + index] : [],
      );
      const log = await this.#open(reader, this.paths.log);
      await writeThrough(log, Buffer.concat(lines), tail.end);
      const flushes = [this.files.syncAppend(log, this.paths.log)];
      if (system.length > 0) {
        const systemFile = await this.#open(reader, this.paths.system);
        const bytes = Buffer.alloc(system.length * SYSTEM_OFFSET_SIZE);
        for (const [index, offset] of system.entries())
          bytes.writeUInt32LE(offset, index * SYSTEM_OFFSET_SIZE);
        await writeThrough(systemFile, bytes, sizeNow(systemFile));
        flushes.push(this.files.syncAppend(systemFile, this.paths.system));
      }
      const hashes = messages.map((message) => hashMessageId(message.id));
      const links = await this.#buckets.link(reader, tail.count, hashes);
      // A guarded commit counts only once the record has its revision, written after this returns: its entries
      // may reach the disk before its lines (a power loss then leaves entries the record never confirmed, cut
      // off as a stopped writer's are), so lines and entries are flushed side by side, one round instead of two.
      if (!stamp.guarded) await Promise.all(flushes);
      const entries = Buffer.alloc(messages.length * ENTRY_SIZE);
      let end = tail.end;
      let last: IndexEntry | undefined;
      for (const [index, line] of lines.entries()) {
        end += line.length;
        const final = index === lines.length - 1;
        last = {
          end,
          flags:
            (final ? EntryFlag.commitEnd : 0) |
            (final && stamp.guarded ? EntryFlag.guarded : 0) |
            ((messages[index] as Message).role === "system" ? EntryFlag.system : 0),
          revision: stamp.revision,
          committedAt: stamp.committedAt,
          lineChecksum: checksum(line),
          idHash: hashes[index] as number,
          previous: links.previous[index] as number,
        };
        encodeEntry(last, entries, index * ENTRY_SIZE);
      }
      // The commit point: once these entries are whole, the messages are in the thread.
      const index = await this.#open(reader, this.paths.index);
      await writeThrough(index, entries, tail.count * ENTRY_SIZE);
      await Promise.all([...(stamp.guarded ? flushes : []), this.files.syncAppend(index, this.paths.index)]);
      const count = tail.count + messages.length;
      await this.#buckets.catchUp(reader, count, { lag: LINK_LAG });
      // The entries the buckets still leave unlinked are the ones the lookups and the link read, and these.
      const watermark = await this.#buckets.watermark(reader);
      if (watermark < count) {
        const before = await reader.idHashes(watermark, tail.count);
        reader.knowIdHashes(watermark, count, [...before, ...hashes]);
      }
      return { count, end, last };
    });
  }

  /**
   * Without `files`, the segment's files are opened for this call alone. Its caller is a commit writing
   * into its new head segment while it holds its current head's files (and the thread's lock): it takes its
   * turn at once (`overdraft`), so commits holding every turn never wait on each other. Imports under the
   * references lock take their one turn at once too (`withFiles` with `overdraft`), since a commit holding a
   * turn may be waiting for that lock. So at most MAX_SEGMENT_LEASES normal turns are held, plus one
   * overdraft per commit holding one, plus up to eight (PARALLEL_SEGMENTS) segments of one batch import.
   */
  #with<T>(files: SegmentReader | undefined, task: (files: SegmentReader) => Promise<T>): Promise<T> {
    return files
      ? task(files)
      : withReader(this.paths, task, { writable: true, cache: this.cache, overdraft: true });
  }

  async #open(files: SegmentReader, path: string): Promise<FileHandle> {
    const handle = await files.handle(path);
    if (!handle) throw new CorruptStoreError(path, "a file of the segment is missing");
    return handle;
  }

  async #truncate(handle: FileHandle, path: string, length: number): Promise<void> {
    await handle.truncate(length);
    await this.files.syncAppend(handle, path);
  }

  /**
   * Whether the last committed line checks out. Only "batch" durability and interim writes can lose lines the
   * index points at; with "fsync", a damaged line is reported by readers rather than cut off, since it was
   * acknowledged.
   */
  async #lastLineIntact(reader: SegmentReader, tail: SegmentTail): Promise<boolean> {
    if (this.files.durability === "fsync" && !this.files.interim) return true;
    try {
      await reader.messages(tail.count - 1, tail.count);
      return true;
    } catch (error) {
      if (CorruptStoreError.isInstance(error)) return false;
      throw error;
    }
  }

  async #locate(reader: SegmentReader, messageId: string, before: number) {
    return confirm(
      reader,
      messageId,
      await this.#buckets.candidates(reader, hashMessageId(messageId), before),
    );
  }
}

/** The first candidate offset whose message really has `messageId` (hashes can collide). */
async function confirm(reader: SegmentReader, messageId: string, candidates: number[]) {
  for (const offset of candidates) {
    const [message] = await reader.messages(offset, offset + 1);
    if (message?.id === messageId) return { offset, message };
  }
  return undefined;
}

/** A thread's head as a reader sees it: its tail and its end file's slot (`SegmentLog.visibleTail`). */
export interface HeadState {
  tail: SegmentTail;
  headEnd: HeadEnd | undefined;
}

async function visibleTail(reader: SegmentReader, confirmed: number): Promise<SegmentTail> {
  return unconfirmedCut(reader, await reader.tail(), confirmed);
}

/**
 * `tail` without its last commits that are guarded and not confirmed (their revision above `confirmed`). A
 * writer holding the lock meets one at most (a crash between a commit's entries and its commit point); a
 * reader without the lock may meet more, written after it read what confirms them.
 */
async function unconfirmedCut(
  reader: SegmentReader,
  tail: SegmentTail,
  confirmed: number,
): Promise<SegmentTail> {
  let cut = tail;
  while (cut.last && cut.last.flags & EntryFlag.guarded && cut.last.revision > confirmed) {
    cut = await reader.tail(cut.count - 1);
  }
  return cut;
}

/**
 * How many system offsets to keep when the segment is cut back to `count` messages, or undefined when
 * none lies past it. Offsets only grow, so the last one tells; only a cut reads them all.
 */
async function keptSystemOffsets(handle: FileHandle, count: number): Promise<number | undefined> {
  const stored = Math.floor(sizeNow(handle) / SYSTEM_OFFSET_SIZE);
  if (stored === 0) return undefined;
  const last = readAtNow(handle, SYSTEM_OFFSET_SIZE, (stored - 1) * SYSTEM_OFFSET_SIZE).readUInt32LE(0);
  if (last < count) return undefined;
  const bytes = await readAt(handle, stored * SYSTEM_OFFSET_SIZE, 0);
  let kept = 0;
  while (kept < stored && bytes.readUInt32LE(kept * SYSTEM_OFFSET_SIZE) < count) kept++;
  return kept;
}

async function readSystemOffsets(reader: SegmentReader): Promise<number[]> {
  const handle = await reader.handle(reader.paths.system);
  if (!handle) return [];
  const bytes = await readAt(handle, (await handle.stat()).size, 0);
  return Array.from({ length: Math.floor(bytes.length / SYSTEM_OFFSET_SIZE) }, (_, index) =>
    bytes.readUInt32LE(index * SYSTEM_OFFSET_SIZE),
  );
}

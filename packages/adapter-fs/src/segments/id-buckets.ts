import { type FileHandle, open } from "node:fs/promises";
import type { DurableFiles } from "../records/durable-files.js";
import { readAt, readAtNow, truncateTo } from "../records/file-access.js";
import type { IndexEntry } from "./index-entry.js";
import type { SegmentReader } from "./segment-reader.js";

/** `buckets.bin` starts with the watermark: the buckets cover offsets below it. */
export const BUCKETS_HEADER_SIZE = 8;
const SLOT_SIZE = 4;
const FIRST_GENERATION_BUCKETS = 1024;
const MESSAGES_PER_BUCKET = 2;
const CATCH_UP_CHUNK = 4096;
/**
 * Appends leave the slots alone until this many committed entries wait for them, then link them all in
 * one write and one fsync: lookups read the waiting entries directly (a few kilobytes), so an append
 * costs no bucket write and no fsync of its own.
 */
export const LINK_LAG = 64;
/** At least this many slots, no more than this many times as far apart on average, are read or written as one span. */
const SPAN_MIN_SLOTS = 32;
const SPAN_SLOTS_PER_SLOT = 64;

/**
 * An on-disk hash index from message id to offset, so `locate` never scans a segment. Entries chain through
 * their `previous` field; a bucket slot holds 1 + the newest offset of its chain. Offsets come in
 * generations that double in size, each with twice the buckets of the one before (generation g holds
 * 2048 × 2^g offsets in 1024 × 2^g buckets), so chains stay about two long and a lookup reads O(log n)
 * entries (a few microseconds each, read synchronously), while an append only writes its own entries
 * (their slots follow, LINK_LAG entries at a time): nothing is ever rehashed.
 */
export class IdBuckets {
  constructor(
    readonly path: string,
    readonly files: DurableFiles,
  ) {}

  /** Offsets below `before` whose id hash is `hash`, newest first; the caller confirms them against the log. */
  async candidates(reader: SegmentReader, hash: number, before: number): Promise<number[]> {
    const handle = await reader.handle(this.path);
    const watermark = Math.min(handle ? watermarkOf(reader, handle) : 0, before);
    const found: number[] = [];
    // Committed but not linked yet (a writer stopped in between): few, and read directly.
    if (watermark < before) {
      const hashes = await reader.idHashes(watermark, before);
      for (let index = hashes.length - 1; index >= 0; index--) {
        if (hashes[index] === hash) found.push(watermark + index);
      }
    }
    if (!handle || watermark === 0) return found;
    // A slot and about two entries per generation: small reads, made at once (`readAtNow`).
    for (let generation = generationOf(watermark - 1); generation >= 0; generation--) {
      let pointer = readSlotNow(handle, slotOf(hash, generation));
      while (pointer > 0) {
        const offset = pointer - 1;
        const entry = await reader.entryNow(offset);
        if (!entry || entry.previous >= pointer) break;
        if (offset < watermark && entry.idHash === hash) found.push(offset);
        pointer = entry.previous;
      }
    }
    return found;
  }

  /**
   * The `previous` links of new messages at offsets `from…`, and the slots that must then point at them.
   * Committed entries the slots do not cover yet (at most LINK_LAG of them) count as chain heads too.
   */
  async link(reader: SegmentReader, from: number, hashes: number[]) {
    const handle = await reader.handle(this.path);
    const slots = hashes.map((hash, index) => slotOf(hash, generationOf(from + index)));
    const current = handle ? await readSlots(handle, [...new Set(slots)]) : new Map<number, number>();
    const watermark = handle ? watermarkOf(reader, handle) : 0;
    if (watermark < from) {
      const lagging = await reader.idHashes(watermark, from);
      for (const [index, idHash] of lagging.entries()) {
        const offset = watermark + index;
        const slot = idHash === undefined ? undefined : slotOf(idHash, generationOf(offset));
        if (slot !== undefined && current.has(slot)) current.set(slot, offset + 1);
      }
    }
    const previous = slots.map((slot, index) => {
      const head = current.get(slot) ?? 0;
      current.set(slot, from + index + 1);
      return head;
    });
    return { previous };
  }

  /** Points the slots at their new chain heads, then moves the watermark to `count`. */
  async store(heads: Map<number, number>, count: number): Promise<void> {
    const handle = await open(this.path, "r+");
    try {
      const span = coveringSpan([...heads.keys()]);
      if (span) {
        // Many slots close together: one read-modify-write of the span instead of a write each.
        const bytes = Buffer.alloc((span.last - span.first + 1) * SLOT_SIZE);
        bytes.set(await readAt(handle, bytes.length, slotPosition(span.first)));
        for (const [slot, value] of heads) bytes.writeUInt32LE(value, (slot - span.first) * SLOT_SIZE);
        await handle.write(bytes, 0, bytes.length, slotPosition(span.first));
      } else {
        await Promise.all(
          [...heads].map(([slot, value]) => {
            const bytes = Buffer.alloc(SLOT_SIZE);
            bytes.writeUInt32LE(value);
            return handle.write(bytes, 0, SLOT_SIZE, slotPosition(slot));
          }),
        );
      }
      // The slots are durable before the watermark says so; a lost watermark only means a catch-up. Also in
      // "batch" mode (one fdatasync per LINK_LAG appends): deferred, a power loss could keep the watermark and
      // lose its slots, and a re-sent message the lookups then miss would be written twice.
      await handle.datasync();
      const watermark = Buffer.alloc(SLOT_SIZE);
      watermark.writeUInt32LE(count);
      await handle.write(watermark, 0, SLOT_SIZE, 0);
    } finally {
      await handle.close();
    }
  }

  /**
   * The watermark, as `reader` knows it (`watermarkOf`): read once per writable reader, then kept in step
   * with what it stores.
   */
  async watermark(reader: SegmentReader): Promise<number> {
    const handle = await reader.handle(this.path);
    return handle ? watermarkOf(reader, handle) : 0;
  }

  /** Makes a writable `reader` know the watermark without reading it: the holder of the segment's lock's. */
  knowWatermark(reader: SegmentReader, watermark: number): void {
    if (reader.writable) watermarks.set(reader, watermark);
  }

  /** `store`, keeping the watermark `reader` knows (`watermarkOf`) in step. */
  async #store(reader: SegmentReader, heads: Map<number, number>, count: number): Promise<void> {
    watermarks.delete(reader);
    await this.store(heads, count);
    if (reader.writable) watermarks.set(reader, count);
  }

  /**
   * Links committed entries the buckets do not cover yet (their writer stopped after committing). If the
   * index was cut back below the watermark, the buckets are rebuilt from the entries.
   */
  async catchUp(
    reader: SegmentReader,
    count: number,
    options: { lag?: number; rebuild?: boolean } = {},
  ): Promise<void> {
    const handle = await reader.handle(this.path);
    let watermark = handle ? watermarkOf(reader, handle) : 0;
    if (!options.rebuild && watermark <= count && count - watermark < (options.lag ?? 1)) return;
    if (watermark > count || options.rebuild) {
      // Drops every slot; the header keeps the old watermark until `store` writes the new one.
      watermarks.delete(reader);
      await truncateTo(this.files, this.path, BUCKETS_HEADER_SIZE);
      watermark = 0;
    }
    const heads = new Map<number, number>();
    for (let from = watermark; from < count; from += CATCH_UP_CHUNK) {
      const entries = await reader.entries(from, Math.min(count, from + CATCH_UP_CHUNK));
      for (const [index, entry] of entries.entries()) {
        const offset = from + index;
        if (entry) heads.set(slotOf(entry.idHash, generationOf(offset)), offset + 1);
      }
    }
    await this.#store(reader, heads, count);
  }

  /**
   * Call before committed entries at offsets `count…committed` are cut off (a commit its record never
   * confirmed, lines a power loss took). Slots flushed before their watermark was written (a writer stopped
   * in between) may point at those entries, whose offsets the next appends reuse: a chain would then lead
   * into another bucket's entries and lose older ids, so a re-sent message would be written twice. Each
   * slot the cut entries used is pointed back along its chain to its newest entry below `count`, and the
   * watermark moved down to `count`, before the cut: the cost is that of the cut entries, not the segment.
   */
  async unlink(reader: SegmentReader, count: number, committed: number): Promise<void> {
    const handle = await reader.handle(this.path);
    if (!handle || committed <= count) return;
    const cut = await reader.entries(count, committed);
    const whole = cut.length === committed - count && cut.every((entry) => entry !== undefined);
    if (!whole) return this.catchUp(reader, count, { rebuild: true });
    const slots = (cut as IndexEntry[]).map((entry, index) =>
      slotOf(entry.idHash, generationOf(count + index)),
    );
    const heads = new Map<number, number>();
    for (const [slot, value] of await readSlots(handle, [...new Set(slots)])) {
      let pointer = value;
      while (pointer > count) {
        const entry = cut[pointer - 1 - count];
        // A slot past the last commit, or a chain that does not lead back: only a rebuild is sure.
        if (!entry || entry.previous >= pointer) return this.catchUp(reader, count, { rebuild: true });
        pointer = entry.previous;
      }
      if (pointer !== value) heads.set(slot, pointer);
    }
    const watermark = watermarkOf(reader, handle);
    if (heads.size > 0 || watermark > count) await this.#store(reader, heads, Math.min(watermark, count));
  }
}

/** The generation of an offset: 0 for the first 2048, 1 for the next 4096, and so on. */
function generationOf(offset: number): number {
  return 31 - Math.clz32(Math.floor(offset / (FIRST_GENERATION_BUCKETS * MESSAGES_PER_BUCKET)) + 1);
}

function slotOf(hash: number, generation: number): number {
  const buckets = FIRST_GENERATION_BUCKETS * 2 ** generation;
  return FIRST_GENERATION_BUCKETS * (2 ** generation - 1) + ((hash >>> 0) % buckets);
}

function slotPosition(slot: number): number {
  return BUCKETS_HEADER_SIZE + slot * SLOT_SIZE;
}

/** The span of slots to read or write at once when `slots` are many and close together, else undefined. */
function coveringSpan(slots: number[]): { first: number; last: number } | undefined {
  if (slots.length < SPAN_MIN_SLOTS) return undefined;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const slot of slots) {
    first = Math.min(first, slot);
    last = Math.max(last, slot);
  }
  return last - first + 1 <= slots.length * SPAN_SLOTS_PER_SLOT ? { first, last } : undefined;
}

/** The current value of each slot, read in one go when they are many. */
async function readSlots(handle: FileHandle, slots: number[]): Promise<Map<number, number>> {
  const span = coveringSpan(slots);
  // A few scattered slots: 4 bytes each from the page cache, read at once.
  if (!span) return new Map(slots.map((slot) => [slot, readSlotNow(handle, slot)] as const));
  const bytes = await readAt(handle, (span.last - span.first + 1) * SLOT_SIZE, slotPosition(span.first));
  return new Map(
    slots.map((slot) => {
      const position = (slot - span.first) * SLOT_SIZE;
      return [slot, position + SLOT_SIZE <= bytes.length ? bytes.readUInt32LE(position) : 0];
    }),
  );
}

/**
 * The watermark a reader holding the segment's lock (a writable one) read or stored last. buckets.bin
 * changes only through `store`, by the lock's holder, so one operation reads it once, not once per lookup,
 * link and catch-up. Other readers read it each time.
 */
const watermarks = new WeakMap<SegmentReader, number>();

function watermarkOf(reader: SegmentReader, handle: FileHandle): number {
  const known = watermarks.get(reader);
  if (known !== undefined) return known;
  const watermark = readWatermarkNow(handle);
  if (reader.writable) watermarks.set(reader, watermark);
  return watermark;
}

function readWatermarkNow(handle: FileHandle): number {
  const bytes = readAtNow(handle, SLOT_SIZE, 0);
  return bytes.length === SLOT_SIZE ? bytes.readUInt32LE(0) : 0;
}

function readSlotNow(handle: FileHandle, slot: number): number {
  const bytes = readAtNow(handle, SLOT_SIZE, slotPosition(slot));
  return bytes.length === SLOT_SIZE ? bytes.readUInt32LE(0) : 0;
}

import { PointNotFoundError, SkeinError } from "../errors.js";
import type { Message } from "../message.js";
import { checkReadOptions, checkViewOptions } from "../read-options.js";
import type { LogPoint, ReadOptions, ViewOptions } from "../thread.js";
import type { LogDriver, SegmentInfo } from "./log-driver.js";
import { SegmentInfoCache } from "./segment-info-cache.js";
import { selectView } from "./view.js";

/** The most messages one driver read returns, so a full load never asks a backend for everything at once. */
export const READ_PAGE = 1000;

/** A run of one segment's own messages that a thread sees: positions [start, start + count). */
export interface ChainRange {
  segment: string;
  start: number;
  count: number;
}

/**
 * Reads a thread's messages through its chain of segments. Segment infos never change, so they are
 * cached (a bounded cache); reading a range touches only the segments that hold it, whatever the thread's length.
 */
export class SegmentChains {
  readonly #infos: SegmentInfoCache;

  /** @param cacheSize how many segment infos to keep; @default SEGMENT_INFO_CACHE_SIZE */
  constructor(
    readonly driver: LogDriver,
    cacheSize?: number,
  ) {
    this.#infos = new SegmentInfoCache((id) => driver.segment(id), cacheSize);
  }

  /** The segment's info if it was read before, without waiting. */
  cached(segmentId: string): SegmentInfo | undefined {
    return this.#infos.cached(segmentId);
  }

  /** How many segment infos are held (bounded by the cache size). */
  get cachedInfos(): number {
    return this.#infos.size;
  }

  async info(segmentId: string): Promise<SegmentInfo> {
    const info = await this.#infos.get(segmentId);
    if (!info) {
      throw new SkeinError(`Segment ${segmentId} is missing: the store is damaged.`, {
        source: this.driver.source,
      });
    }
    return info;
  }

  /** The ranges, oldest first, that make up the log ending `offset` messages into `segment`. */
  async chain(segment: string, offset: number): Promise<ChainRange[]> {
    // Held here, not looked up again: a long chain may be longer than the cache.
    const walked = new Map<string, SegmentInfo>();
    let current: string | undefined = segment;
    while (current !== undefined) {
      const info = await this.info(current);
      walked.set(current, info);
      current = info.base?.segment;
    }
    return chainRanges(segment, offset, (id) => walked.get(id) as SegmentInfo);
  }

  /** Messages at positions [from, to) of a chain, asked of the driver in pages of at most READ_PAGE. */
  async read(ranges: ChainRange[], from: number, to: number): Promise<Message[]> {
    const pieces: Message[][] = [];
    for (const range of ranges) {
      const low = Math.max(from, range.start) - range.start;
      const high = Math.min(to, range.start + range.count) - range.start;
      for (let page = low; page < high; page += READ_PAGE) {
        pieces.push(await this.driver.readSegment(range.segment, page, Math.min(high, page + READ_PAGE)));
      }
    }
    // Joined by hand: `flat()` cost more than copying the messages themselves in the memory store's reads. One
    // piece is returned as it is, not copied: `readSegment` gives the caller a new array (see LogDriver).
    if (pieces.length === 1) return pieces[0] as Message[];
    const messages: Message[] = [];
    for (const piece of pieces) for (const message of piece) messages.push(message);
    return messages;
  }

  /** The position of a message in a chain, searching the newest segment first. */
  async locate(ranges: ChainRange[], messageId: string): Promise<{ position: number } | undefined> {
    for (let index = ranges.length - 1; index >= 0; index--) {
      const range = ranges[index] as ChainRange;
      if (range.count === 0) continue;
      const found = await this.driver.locate(range.segment, messageId, range.count);
      if (found) return { position: range.start + found.offset };
    }
    return undefined;
  }

  /** `thread.messages({ last, after, before, limit })` over a chain. */
  async messages(
    ranges: ChainRange[],
    threadId: string,
    options: ReadOptions | undefined,
  ): Promise<Message[]> {
    // Checked here, where every local thread and every snapshot of one reads its messages.
    options = checkReadOptions("thread.messages", options);
    let from = 0;
    let end = SegmentChains.length(ranges);
    const position = async (id: string) => {
      const found = await this.locate(ranges, id);
      if (!found) throw new PointNotFoundError(threadId, id, { source: this.driver.source });
      return found.position;
    };
    if (options.after !== undefined) from = (await position(options.after)) + 1;
    if (options.before !== undefined) end = await position(options.before);
    if (options.last !== undefined) from = Math.max(from, end - options.last);
    let to = end;
    if (options.limit !== undefined) {
      const limit = options.limit;
      // `{ before, limit }` pages backwards: the last `limit` before the message.
      if (options.before !== undefined && options.after === undefined) from = Math.max(from, end - limit);
      else to = Math.min(end, from + limit);
    }
    return from < to ? this.read(ranges, from, to) : [];
  }

  /** The message with this id in a chain, or undefined: one lookup per segment, one read. */
  async message(ranges: ChainRange[], messageId: string): Promise<Message | undefined> {
    const found = await this.locate(ranges, messageId);
    return found && (await this.read(ranges, found.position, found.position + 1))[0];
  }

  /** `thread.view(options)` over a chain: reads newest first, only as far as the budget reaches. */
  async view(ranges: ChainRange[], options: ViewOptions | undefined): Promise<Message[]> {
    // Checked before the system messages are read; `selectView` checks them again for every other caller.
    options = checkViewOptions("thread.view", options);
    return selectView(
      {
        length: SegmentChains.length(ranges),
        read: (from, to) => this.read(ranges, from, to),
        systemAt: options.keepSystem === false ? [] : await this.systemPositions(ranges),
      },
      options,
    );
  }

  /** Positions of the system messages of a chain: ascending when each driver's `systemOffsets` are. */
  async systemPositions(ranges: ChainRange[]): Promise<number[]> {
    const pieces = await readEach(ranges, async (range) =>
      range.count === 0
        ? []
        : (await this.driver.systemOffsets(range.segment, range.count)).map((offset) => range.start + offset),
    );
    return pieces.flat();
  }

  /** The point at a position of a chain, in the segment that holds the message before it. */
  pointAt(ranges: ChainRange[], position: number): LogPoint {
    for (let index = ranges.length - 1; index >= 0; index--) {
      const range = ranges[index] as ChainRange;
      if (position > range.start || index === 0) {
        return { segment: range.segment, offset: position - range.start, position };
      }
    }
    throw new Error("unreachable: a chain has at least one range");
  }

  /** The length of a chain. */
  static length(ranges: ChainRange[]): number {
    const last = ranges[ranges.length - 1];
    return last ? last.start + last.count : 0;
  }
}

/**
 * Driver reads in flight at once when one call reads many segments: enough to overlap round trips, few enough
 * that a chain of thousands of segments stays within a low limit of open files (256 on macOS) on fs.
 */
export const PARALLEL_READS = 32;

/** `Promise.all(items.map(read))` with at most PARALLEL_READS reads in flight; results in input order. */
export async function readEach<Item, Result>(
  items: readonly Item[],
  read: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await read(items[index] as Item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, items.length) }, worker));
  return results;
}

/** The ranges, oldest first, of the log ending `offset` messages into `segment`, given every info on the way. */
export function chainRanges(
  segment: string,
  offset: number,
  info: (id: string) => SegmentInfo,
): ChainRange[] {
  const ranges: ChainRange[] = [];
  let current: { segment: string; offset: number } | null = { segment, offset };
  let root = segment;
  while (current) {
    const found = info(current.segment);
    if (current.offset > 0) ranges.push({ segment: found.id, start: found.start, count: current.offset });
    root = found.id;
    current = found.base;
  }
  // An empty log is named by its root segment, so the same empty prefix always gets the same point.
  return ranges.length > 0 ? ranges.reverse() : [{ segment: root, start: 0, count: 0 }];
}

import { LruCache } from "../manager/lru-cache.js";
import type { SegmentInfo } from "./log-driver.js";

/** How many segment infos a cache keeps by default: about a megabyte. */
export const SEGMENT_INFO_CACHE_SIZE = 10_000;

/**
 * The segment infos a process has read, at most `capacity` of them, least recently used forgotten first.
 * An info never changes while its segment exists, so walks over a chain read each one from the store once,
 * and memory stays flat however many threads a long-lived process touches. thread-core's reads and every
 * driver that needs infos itself (to expire or walk ancestors) use this one cache.
 */
export class SegmentInfoCache<Info extends SegmentInfo = SegmentInfo> {
  readonly #infos: LruCache<string, Info>;

  constructor(
    readonly load: (segmentId: string) => Promise<Info | undefined>,
    capacity = SEGMENT_INFO_CACHE_SIZE,
  ) {
    this.#infos = new LruCache(capacity);
  }

  /** How many infos are held. */
  get size(): number {
    return this.#infos.size;
  }

  /** The info if it is held, without asking the store. */
  cached(segmentId: string): Info | undefined {
    return this.#infos.get(segmentId);
  }

  /**
   * The info, from the cache or the store; undefined (and not remembered) when the store has no such
   * segment. `{ cached: false }` asks the store, for when it matters that the segment was reclaimed.
   */
  async get(segmentId: string, options: { cached?: boolean } = {}): Promise<Info | undefined> {
    const held = options.cached === false ? undefined : this.#infos.get(segmentId);
    if (held) return held;
    const info = await this.load(segmentId);
    if (info) this.#infos.set(segmentId, info);
    return info;
  }

  /** Keeps an info the caller just wrote, so the next read need not ask the store. */
  remember(info: Info): void {
    this.#infos.set(info.id, info);
  }

  /** Drops a segment the store reclaimed. */
  forget(segmentId: string): void {
    const held = this.#infos.get(segmentId);
    if (held) this.#infos.deleteIf(segmentId, held);
  }
}

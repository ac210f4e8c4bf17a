import type { SegmentInfo } from "@skein/thread-core";

/** Forget everything once this many infos are held, to bound memory. */
const HELD_INFOS = 10_000;

/**
 * Segment infos this process has seen. An info never changes while its segment exists, so walks over
 * ancestors (for expiry) read each from Redis once.
 */
export class SegmentInfoCache {
  readonly #infos = new Map<string, SegmentInfo>();

  constructor(readonly load: (segmentId: string) => Promise<SegmentInfo | undefined>) {}

  async get(segmentId: string): Promise<SegmentInfo | undefined> {
    const held = this.#infos.get(segmentId);
    if (held) return held;
    const info = await this.load(segmentId);
    if (info) this.remember(info);
    return info;
  }

  remember(info: SegmentInfo): void {
    if (this.#infos.size >= HELD_INFOS) this.#infos.clear();
    this.#infos.set(info.id, info);
  }
}

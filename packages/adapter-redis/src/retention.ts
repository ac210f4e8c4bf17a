import type { HistoryEvent } from "@skein/thread-core";
import { eventSegments, type SegmentInfo } from "@skein/thread-core/driver";
import type { SegmentReferences } from "./segment-references.js";

/** Forget what was touched once this many segments are remembered, to bound memory. */
const REMEMBERED_SEGMENTS = 10_000;

/** Seconds between refreshes of one segment: a tenth of the TTL, between 1 s and 1 min. */
export function refreshIntervalSeconds(ttlSeconds: number): number {
  return Math.max(1, Math.min(60, Math.floor(ttlSeconds / 10)));
}

/** The expiry given to segments a thread points at in other threads: they must outlive it. */
export function ancestorSeconds(ttlSeconds: number): number {
  return ttlSeconds > 0 ? ttlSeconds + refreshIntervalSeconds(ttlSeconds) : 0;
}

/**
 * Expiry for the segments a thread reads but does not write: its fork's base in the parent's slot,
 * segments left behind by rollbacks, checkpoints. The commit script refreshes the record and head
 * itself; these get `ttl + interval` (never shortened), refreshed at most once per interval by each
 * process, so they always outlive the threads that read them.
 */
export class AncestorRetention {
  readonly intervalSeconds: number;
  readonly #touchedAt = new Map<string, number>();
  /** When each thread's points were last walked, so plain appends skip the walk within an interval. */
  readonly #walkedAt = new Map<string, number>();

  constructor(
    readonly ttlSeconds: number,
    readonly references: SegmentReferences,
    readonly info: (segmentId: string) => Promise<SegmentInfo | undefined>,
  ) {
    this.intervalSeconds = refreshIntervalSeconds(ttlSeconds);
  }

  /**
   * Refreshes every segment reachable from `head`'s base and from the events, except those touched lately.
   * A change that added no point (`pointsChanged` false: a plain append) walks only once per interval, so
   * an append costs the same however many checkpoints and rollbacks the thread has.
   */
  async refresh(threadId: string, head: SegmentInfo, events: HistoryEvent[], pointsChanged: boolean) {
    const now = Date.now();
    const walked = this.#walkedAt.get(threadId);
    if (!pointsChanged && walked !== undefined && now - walked < this.intervalSeconds * 1000) return;
    if (this.#walkedAt.size >= REMEMBERED_SEGMENTS) this.#walkedAt.clear();
    this.#walkedAt.set(threadId, now);
    const starts = new Set(events.flatMap(eventSegments));
    if (head.base) starts.add(head.base.segment);
    starts.delete(head.id);
    await Promise.all([...starts].map((segment) => this.#walk(segment, head.id)));
  }

  async #walk(from: string, head: string): Promise<void> {
    let current: string | undefined = from;
    const now = Date.now();
    while (current !== undefined && current !== head) {
      const touched = this.#touchedAt.get(current);
      // A segment touched lately had its whole chain touched in the same walk.
      if (touched !== undefined && now - touched < this.intervalSeconds * 1000) return;
      if (!(await this.references.touch(current))) return;
      if (this.#touchedAt.size >= REMEMBERED_SEGMENTS) this.#touchedAt.clear();
      this.#touchedAt.set(current, now);
      current = (await this.info(current))?.base?.segment;
    }
  }
}

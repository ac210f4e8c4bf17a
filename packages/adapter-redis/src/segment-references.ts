import type { KeyLayout } from "./key-layout.js";
import { segmentKeyList } from "./key-layout.js";
import type { RedisConnection } from "./redis-connection.js";
import { RELEASE_SEGMENT } from "./scripts/release-segment.js";
import { RETAIN_SEGMENT } from "./scripts/retain-segment.js";

/**
 * Reference counts of segments that live in other hash slots than the thread that points at them
 * (a fork's base is its parent's segment). No script can touch two slots, so these are separate steps,
 * ordered so that a failure between them can only leak a segment, never free one still in use:
 * references are taken before the pointer is written and dropped after it is gone.
 */
export class SegmentReferences {
  constructor(
    readonly connection: RedisConnection,
    readonly layout: KeyLayout,
    /** Expiry given to retained segments so they outlive what points at them; 0 for none. */
    readonly retainSeconds: number,
  ) {}

  /** Takes one reference per occurrence of each id. If any segment is gone, takes none and returns false. */
  async retain(segmentIds: string[]): Promise<boolean> {
    const counted = [...countOccurrences(segmentIds)];
    const taken = await Promise.all(counted.map(([id, count]) => this.#retainOne(id, count)));
    if (taken.every(Boolean)) return true;
    await this.releaseQuietly(
      counted.filter((_, index) => taken[index]).flatMap(([id, count]) => repeat(id, count)),
    );
    return false;
  }

  /** Extends a segment's expiry without taking a reference; false when it is gone. */
  touch(segmentId: string): Promise<boolean> {
    return this.#retainOne(segmentId, 0);
  }

  /** Drops one reference per occurrence; a segment left with none is deleted, and its base released in turn. */
  async release(segmentIds: string[]): Promise<void> {
    await Promise.all([...countOccurrences(segmentIds)].map(([id, count]) => this.#releaseChain(id, count)));
  }

  /** Deletes a segment that holds no reference and is no thread's head (and releases its base); else keeps it. */
  async drop(segmentId: string): Promise<void> {
    await this.#releaseChain(segmentId, 0);
  }

  /** Releases after a failed change: if Redis fails meanwhile the references leak, which is safe. */
  async releaseQuietly(segmentIds: string[]): Promise<void> {
    await this.release(segmentIds).catch(() => {});
  }

  /** Releases the base a deleted segment pointed at (the commit and delete scripts report it as JSON). */
  async releaseBase(baseJson: unknown): Promise<void> {
    const base = typeof baseJson === "string" ? (JSON.parse(baseJson) as { segment: string } | null) : null;
    if (base) await this.#releaseChain(base.segment, 1);
  }

  async #retainOne(segmentId: string, count: number): Promise<boolean> {
    const keys = segmentKeyList(this.layout.segment(segmentId));
    const reply = await this.connection.script(RETAIN_SEGMENT, keys, [
      String(count),
      String(this.retainSeconds),
    ]);
    return reply === 1;
  }

  async #releaseChain(segmentId: string, count: number): Promise<void> {
    let current: string | undefined = segmentId;
    let drop = count;
    while (current !== undefined) {
      const keys = segmentKeyList(this.layout.segment(current));
      const [outcome, base] = (await this.connection.script(RELEASE_SEGMENT, keys, [String(drop)])) as [
        number,
        string?,
      ];
      if (outcome !== 2) return;
      current = (JSON.parse(base ?? "null") as { segment: string } | null)?.segment;
      drop = 1;
    }
  }
}

function countOccurrences(ids: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

function repeat(id: string, count: number): string[] {
  return Array.from({ length: count }, () => id);
}

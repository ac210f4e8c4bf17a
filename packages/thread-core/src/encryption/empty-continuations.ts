import type { SegmentInfo } from "../local/log-driver.js";

/**
 * How many empty continuations in a row a record's head is followed back through: as many takeovers in a row
 * as adapter-fs's writers look back through (`MAX_CONTINUATIONS`).
 */
export const MAX_EMPTY_CONTINUATIONS = 8;

/** A store's segment infos, by id (`LogDriver.segment`); undefined for a segment it does not hold. */
export type SegmentLookup = (segmentId: string) => Promise<SegmentInfo | undefined>;

/**
 * The segments a log whose head is `head` and whose length is `length` continues without a message of its
 * own, nearest first: each step is a segment that starts at `length` (it holds none of the log's messages)
 * and whose base ends exactly at `length`, so the log read through it is the log read through that base,
 * message for message. A store makes such heads without keys: adapter-fs's lock takeover moves a thread onto
 * a new, empty head that continues the old one at its end. A base offset that ends anywhere else (a cut
 * disguised as one) stops the walk.
 */
export async function emptyContinuationBases(
  head: string,
  length: number,
  segment: SegmentLookup,
): Promise<string[]> {
  const bases: string[] = [];
  let at = head;
  for (let step = 0; step < MAX_EMPTY_CONTINUATIONS; step++) {
    const info = await segment(at);
    if (!info?.base || info.start !== length) break;
    const base = await segment(info.base.segment);
    if (!base || base.start + info.base.offset !== length) break;
    bases.push(base.id);
    at = base.id;
  }
  return bases;
}

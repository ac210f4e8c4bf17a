import type { BranchChange, HistoryEvent } from "../thread.js";
import { type ChainRange, SegmentChains } from "./segment-chain.js";

/** The place of one message among its versions: how many messages precede it, and which ones. */
export interface VersionSpot {
  position: number;
  /** The stored slot of the message before it (`BranchChange.after`); null at the start. */
  after: BranchChange["after"];
}

/** A rollback that recorded a version change, as `history()` holds it. */
export type BranchEvent = Extract<HistoryEvent, { kind: "rollback" }> & { branch: BranchChange };

/**
 * The slot of the message before `position` in a chain: the segment that stores it and how many of that
 * segment's own messages reach it. Two chains share their first `position` messages exactly when their slots
 * agree, however their heads differ, so the slot names the prefix a message's versions share.
 */
export function slotBefore(ranges: ChainRange[], position: number): VersionSpot["after"] {
  if (position === 0) return null;
  for (let index = ranges.length - 1; index >= 0; index--) {
    const range = ranges[index] as ChainRange;
    if (position > range.start) return { segment: range.segment, offset: position - range.start };
  }
  return null;
}

/** Whether the chain passes through the spot: it has the spot's prefix, whatever follows it. */
export function chainHasSpot(ranges: ChainRange[], spot: VersionSpot): boolean {
  if (SegmentChains.length(ranges) < spot.position) return false;
  return sameSlot(slotBefore(ranges, spot.position), spot.after);
}

function sameSlot(a: VersionSpot["after"], b: VersionSpot["after"]): boolean {
  if (a === null || b === null) return a === b;
  return a.segment === b.segment && a.offset === b.offset;
}

/** Where a message is stored: its segment and its index among that segment's own messages. */
export type Slot = NonNullable<BranchChange["leftAt"]>;

/** One version of a message: its id and where it is stored (versions of one message may share an id). */
export interface Version {
  id: string;
  slot: Slot;
}

/** The slot of the message at `position` of a chain, or undefined past its end. */
export function slotAt(ranges: ChainRange[], position: number): Slot | undefined {
  const range = ranges.find(
    (candidate) => position >= candidate.start && position < candidate.start + candidate.count,
  );
  return range && { segment: range.segment, offset: position - range.start };
}

export function sameVersion(a: Slot | undefined, b: Slot | undefined): boolean {
  return a !== undefined && b !== undefined && a.segment === b.segment && a.offset === b.offset;
}

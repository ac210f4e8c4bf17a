import type { BranchChange, HistoryEvent, LogPoint } from "../thread.js";
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

/** The version changes recorded at a spot, oldest first. */
export function spotEvents(events: readonly HistoryEvent[], spot: VersionSpot): BranchEvent[] {
  return events.filter(
    (event): event is BranchEvent =>
      event.kind === "rollback" &&
      event.branch !== undefined &&
      event.branch.position === spot.position &&
      sameSlot(event.branch.after, spot.after),
  );
}

/** The spots where `messageId` is a recorded version, newest first, each once. */
export function spotsOf(events: readonly HistoryEvent[], messageId: string): VersionSpot[] {
  const spots: VersionSpot[] = [];
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as HistoryEvent;
    if (event.kind !== "rollback" || !event.branch) continue;
    const { branch } = event;
    if (branch.left !== messageId && branch.entered !== messageId) continue;
    if (spots.some((spot) => spot.position === branch.position && sameSlot(spot.after, branch.after)))
      continue;
    spots.push({ position: branch.position, after: branch.after });
  }
  return spots;
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

/** A spot's versions in the order they were made: the original first, then each edit or answer. */
export function versionsOf(events: readonly BranchEvent[]): Version[] {
  const versions: Version[] = [];
  const add = (id: string | undefined, slot: Slot | undefined) => {
    if (id === undefined || slot === undefined) return;
    if (!versions.some((version) => sameVersion(version.slot, slot))) versions.push({ id, slot });
  };
  for (const { branch } of events) {
    add(branch.left, branch.leftAt);
    add(branch.entered, branch.enteredAt);
  }
  return versions;
}

/**
 * Where the branch behind a version ended when it was last seen at its spot: the end it was left at, or, when
 * it was entered last, the end it had then (a plain rollback elsewhere may have left it since, unrecorded here).
 */
export function versionEnd(events: readonly BranchEvent[], slot: Slot): LogPoint | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as BranchEvent;
    if (sameVersion(event.branch.leftAt, slot)) return event.from;
    if (sameVersion(event.branch.enteredAt, slot)) return event.branch.end;
  }
  return undefined;
}

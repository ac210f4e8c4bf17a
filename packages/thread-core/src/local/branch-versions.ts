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

/** The branch events of one record, grouped by spot and by message: built once per events array. */
interface SpotIndex {
  bySpot: Map<string, BranchEvent[]>;
  /** Per message id, the spots where it is a recorded version, newest first. */
  spotsById: Map<string, VersionSpot[]>;
}

// Keyed by the events array: a record's events are replaced, never changed in place, so an index stays true
// for the array it was built from, and one edit, regenerate or switchTo scans the history once, not per version.
const spotIndexes = new WeakMap<readonly HistoryEvent[], SpotIndex>();

function spotKey(position: number, after: VersionSpot["after"]): string {
  return after === null ? `${position}` : `${position}\u0000${after.segment}\u0000${after.offset}`;
}

function spotIndex(events: readonly HistoryEvent[]): SpotIndex {
  let index = spotIndexes.get(events);
  if (index) return index;
  index = { bySpot: new Map(), spotsById: new Map() };
  const seenById = new Map<string, Set<string>>();
  for (let at = events.length - 1; at >= 0; at--) {
    const event = events[at] as HistoryEvent;
    if (event.kind !== "rollback" || !event.branch) continue;
    const { branch } = event;
    const key = spotKey(branch.position, branch.after);
    const atSpot = index.bySpot.get(key);
    if (atSpot) atSpot.push(event as BranchEvent);
    else index.bySpot.set(key, [event as BranchEvent]);
    for (const id of new Set([branch.left, branch.entered])) {
      if (id === undefined) continue;
      const seen = seenById.get(id) ?? new Set<string>();
      seenById.set(id, seen);
      if (seen.has(key)) continue;
      seen.add(key);
      const spots = index.spotsById.get(id) ?? [];
      index.spotsById.set(id, spots);
      spots.push({ position: branch.position, after: branch.after });
    }
  }
  // Gathered newest first above; a spot's events are wanted oldest first.
  for (const atSpot of index.bySpot.values()) atSpot.reverse();
  spotIndexes.set(events, index);
  return index;
}

const NO_EVENTS: BranchEvent[] = [];

/** The version changes recorded at a spot, oldest first (the same array for the same record and spot). */
export function spotEvents(events: readonly HistoryEvent[], spot: VersionSpot): BranchEvent[] {
  return spotIndex(events).bySpot.get(spotKey(spot.position, spot.after)) ?? NO_EVENTS;
}

/** The spots where `messageId` is a recorded version, newest first, each once. */
export function spotsOf(events: readonly HistoryEvent[], messageId: string): VersionSpot[] {
  return spotIndex(events).spotsById.get(messageId) ?? [];
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

function slotKey(slot: Slot): string {
  return `${slot.segment}\u0000${slot.offset}`;
}

/** A spot's versions and where each branch ended, built once per spot's events array (see spotIndexes). */
interface SpotVersions {
  versions: Version[];
  ends: Map<string, LogPoint>;
}

const spotVersions = new WeakMap<readonly BranchEvent[], SpotVersions>();

function versionsAt(events: readonly BranchEvent[]): SpotVersions {
  let found = spotVersions.get(events);
  if (found) return found;
  found = { versions: [], ends: new Map() };
  const { versions, ends } = found;
  const seen = new Set<string>();
  const add = (id: string | undefined, slot: Slot | undefined) => {
    if (id === undefined || slot === undefined) return;
    const key = slotKey(slot);
    if (seen.has(key)) return;
    seen.add(key);
    versions.push({ id, slot });
  };
  for (const event of events) {
    const { branch } = event;
    add(branch.left, branch.leftAt);
    add(branch.entered, branch.enteredAt);
    // Later events overwrite earlier ones: the end a version had when last seen at its spot.
    // Within one event the slot left wins, as it did when events were searched newest first.
    if (branch.enteredAt) ends.set(slotKey(branch.enteredAt), branch.end);
    if (branch.leftAt) ends.set(slotKey(branch.leftAt), event.from);
  }
  spotVersions.set(events, found);
  return found;
}

/** A spot's versions in the order they were made: the original first, then each edit or answer. */
export function versionsOf(events: readonly BranchEvent[]): readonly Version[] {
  return versionsAt(events).versions;
}

/**
 * Where the branch behind a version ended when it was last seen at its spot: the end it was left at, or, when
 * it was entered last, the end it had then (a plain rollback elsewhere may have left it since, unrecorded here).
 */
export function versionEnd(events: readonly BranchEvent[], slot: Slot): LogPoint | undefined {
  return versionsAt(events).ends.get(slotKey(slot));
}

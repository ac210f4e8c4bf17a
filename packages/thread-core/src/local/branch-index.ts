import type { HistoryEvent, LogPoint } from "../thread.js";
import {
  type BranchEvent,
  type Slot,
  sameVersion,
  type Version,
  type VersionSpot,
} from "./branch-versions.js";
import { continuedHistory } from "./history-continuation.js";

function spotKey(spot: VersionSpot): string {
  const { position, after } = spot;
  return after === null ? `${position}` : `${position}\u0000${after.segment}\u0000${after.offset}`;
}

function slotKey(slot: Slot): string {
  return `${slot.segment}\u0000${slot.offset}`;
}

/**
 * How many entries of `ats` (the history indexes of a list's entries, ascending) lie in the first `length`
 * events. Counted from the end: the history a caller holds is nearly always the newest, so this skips none.
 */
function within(ats: readonly number[], length: number): number {
  let count = ats.length;
  while (count > 0 && (ats[count - 1] as number) >= length) count--;
  return count;
}

/** Where a version's branch ended each time a version change at its spot named it, oldest first. */
interface SlotEnds {
  at: number[];
  points: LogPoint[];
}

/** Everything the version changes at one spot recorded, in history order, each entry with its event's index. */
class SpotLog {
  readonly events: BranchEvent[] = [];
  readonly eventAt: number[] = [];
  readonly versions: Version[] = [];
  readonly versionAt: number[] = [];
  /** Per version id, its indexes in `versions` (edits that keep a message's id share it). */
  readonly byId = new Map<string, number[]>();
  readonly #slots = new Set<string>();
  readonly ends = new Map<string, SlotEnds>();

  add(event: BranchEvent, at: number): void {
    this.events.push(event);
    this.eventAt.push(at);
    const { branch } = event;
    this.#addVersion(branch.left, branch.leftAt, at);
    this.#addVersion(branch.entered, branch.enteredAt, at);
    // Later events overwrite earlier ones: the end a version had when last seen at its spot. Within one
    // event the slot left wins (it is recorded second).
    if (branch.enteredAt) this.#addEnd(branch.enteredAt, branch.end, at);
    if (branch.leftAt) this.#addEnd(branch.leftAt, event.from, at);
  }

  #addVersion(id: string | undefined, slot: Slot | undefined, at: number): void {
    if (id === undefined || slot === undefined) return;
    const key = slotKey(slot);
    if (this.#slots.has(key)) return;
    this.#slots.add(key);
    const named = this.byId.get(id);
    if (named) named.push(this.versions.length);
    else this.byId.set(id, [this.versions.length]);
    this.versions.push({ id, slot });
    this.versionAt.push(at);
  }

  #addEnd(slot: Slot, point: LogPoint, at: number): void {
    const key = slotKey(slot);
    const ends = this.ends.get(key);
    if (ends) {
      ends.at.push(at);
      ends.points.push(point);
    } else this.ends.set(key, { at: [at], points: [point] });
  }
}

/** A spot's recorded versions as a history of `length` events has them. */
export class SpotVersions {
  constructor(
    private readonly log: SpotLog | undefined,
    private readonly length: number,
  ) {}

  /** How many versions the history recorded at the spot. */
  get count(): number {
    return this.log ? within(this.log.versionAt, this.length) : 0;
  }

  /** The newest version change at the spot. */
  get last(): BranchEvent | undefined {
    if (!this.log) return undefined;
    return this.log.events[within(this.log.eventAt, this.length) - 1];
  }

  /** The versions in the order they were made: the original first, then each edit or answer. */
  list(): Version[] {
    return this.log ? this.log.versions.slice(0, this.count) : [];
  }

  /** The version at `index` in the order they were made. */
  version(index: number): Version | undefined {
    return index >= 0 && index < this.count ? this.log?.versions[index] : undefined;
  }

  /** Whether a recorded version has the id. */
  has(id: string): boolean {
    const named = this.log?.byId.get(id);
    return named !== undefined && (named[0] as number) < this.count;
  }

  /** The oldest recorded version with the id. */
  first(id: string): Version | undefined {
    return this.has(id) ? this.log?.versions[this.log.byId.get(id)?.[0] as number] : undefined;
  }

  /** The newest recorded version with the id stored elsewhere than `except`. */
  newest(id: string, except?: Slot): Version | undefined {
    const log = this.log;
    const named = log?.byId.get(id);
    if (!log || !named) return undefined;
    const count = this.count;
    for (let index = named.length - 1; index >= 0; index--) {
      if ((named[index] as number) >= count) continue;
      const version = log.versions[named[index] as number] as Version;
      if (!sameVersion(version.slot, except)) return version;
    }
    return undefined;
  }

  /**
   * Where the branch behind a version ended when it was last seen at its spot: the end it was left at, or,
   * when it was entered last, the end it had then (a plain rollback elsewhere may have left it since,
   * unrecorded here). Undefined for a version no change at the spot recorded.
   */
  end(slot: Slot): LogPoint | undefined {
    const ends = this.log?.ends.get(slotKey(slot));
    if (!ends) return undefined;
    return ends.points[within(ends.at, this.length) - 1];
  }
}

/** Where a message id was a version: each version change that left or entered it, oldest first. */
interface Appearance {
  key: string;
  spot: VersionSpot;
  at: number;
}

/**
 * The version changes of a record's history grouped by spot and by message, built event by event. A
 * history only grows (see `continuedHistory`), so the index of a record's events serves the next record's
 * too: it reads only the events it has not seen, and an edit, regenerate or switchTo costs the same however
 * long the history is.
 */
class SharedIndex {
  /** The longest history read so far: every history the index serves is a prefix of it. */
  source: readonly HistoryEvent[] = [];
  readonly spots = new Map<string, SpotLog>();
  readonly appearances = new Map<string, Appearance[]>();

  extend(events: readonly HistoryEvent[]): void {
    for (let at = this.source.length; at < events.length; at++) {
      const event = events[at] as HistoryEvent;
      if (event.kind !== "rollback" || !event.branch) continue;
      const { branch } = event;
      const spot = { position: branch.position, after: branch.after };
      const key = spotKey(spot);
      let log = this.spots.get(key);
      if (!log) {
        log = new SpotLog();
        this.spots.set(key, log);
      }
      log.add(event as BranchEvent, at);
      for (const id of branch.left === branch.entered ? [branch.left] : [branch.left, branch.entered]) {
        if (id === undefined) continue;
        const seen = this.appearances.get(id);
        if (seen) seen.push({ key, spot, at });
        else this.appearances.set(id, [{ key, spot, at }]);
      }
    }
    this.source = events;
    if (events.length > 0) continuations.set(events[events.length - 1] as HistoryEvent, this);
  }
}

/** The version changes of one history (a record's events array): what edit, regenerate and switchTo read. */
export class BranchHistory {
  constructor(
    private readonly index: SharedIndex,
    private readonly length: number,
  ) {}

  /** The versions recorded at a spot. */
  at(spot: VersionSpot): SpotVersions {
    return new SpotVersions(this.index.spots.get(spotKey(spot)), this.length);
  }

  /** The newest spot where `messageId` is a recorded version and `accept` holds (each spot tried once). */
  findSpot(messageId: string, accept: (spot: VersionSpot) => boolean): VersionSpot | undefined {
    const appearances = this.index.appearances.get(messageId) ?? [];
    const tried = new Set<string>();
    for (let index = appearances.length - 1; index >= 0; index--) {
      const { key, spot, at } = appearances[index] as Appearance;
      if (at >= this.length || tried.has(key)) continue;
      tried.add(key);
      if (accept(spot)) return spot;
    }
    return undefined;
  }
}

// An events array is never changed once a record holds it (records are replaced), so its view stays true.
const histories = new WeakMap<readonly HistoryEvent[], BranchHistory>();
/** Each index by the last event it read: a history ending with that event continues it. */
const continuations = new WeakMap<HistoryEvent, SharedIndex>();

/** The version changes of a record's history, read once per events array and extended from its predecessor's. */
export function branchHistory(events: readonly HistoryEvent[]): BranchHistory {
  let history = histories.get(events);
  if (history) return history;
  const index = continuedHistory(continuations, events) ?? new SharedIndex();
  index.extend(events);
  history = new BranchHistory(index, events.length);
  histories.set(events, history);
  return history;
}

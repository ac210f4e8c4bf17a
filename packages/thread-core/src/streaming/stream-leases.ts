import type { LogDriver } from "../spec/log-driver.js";
import { ALL_BATCHES } from "./stream-deltas.js";
import type { StreamEntry } from "./stream-entries.js";

/**
 * A writer's lease lives in its reply's own segment, not in the thread's record: every batch it writes renews
 * it, and a writer with nothing to write adds an empty batch (a heartbeat) every third of `leaseMs`. So a
 * renewal is no commit of the record and never moves the thread's revision: an `ifRevision` taken while a
 * reply streams holds until something else changes the thread. The record's entry keeps the lease as it was
 * at `beginMessage` (`leaseUntil`), so a reply younger than its lease costs no read of its segment.
 *
 * What this process last read of each reply's segment: how many batches, and when the newest was written.
 * A reader reads only the batches after these, and none while the newest is fresh. Bounded: past the bound
 * the oldest note goes, which only costs its next reader a read of the whole segment.
 */
const newest = new Map<string, { batches: number; at: number }>();
const NOTES_KEPT = 1_024;

/**
 * Whether the writer of `entry` lost its lease by `now`: it began more than `leaseMs` ago and wrote no batch
 * in the last `leaseMs`. An entry without `leaseMs` (written by a version that renewed in the record) lapses
 * at its `leaseUntil`. Batches carry the writer's clock, as `leaseUntil` does.
 */
export async function leaseLapsed(driver: LogDriver, entry: StreamEntry, now = Date.now()): Promise<boolean> {
  if (entry.leaseUntil > now) return false;
  if (entry.leaseMs === undefined) return true;
  const known = newest.get(entry.segment) ?? { batches: 0, at: 0 };
  if (known.at + entry.leaseMs > now) return false;
  const fresh = await driver.readSegment(entry.segment, known.batches, ALL_BATCHES);
  const last = fresh[fresh.length - 1];
  const seen = last ? { batches: known.batches + fresh.length, at: Date.parse(last.createdAt) } : known;
  newest.delete(entry.segment);
  newest.set(entry.segment, seen);
  if (newest.size > NOTES_KEPT) newest.delete(newest.keys().next().value as string);
  return seen.at + entry.leaseMs <= now;
}

/** The entries among `entries` whose writer lost its lease by `now`. */
export async function lapsedOf(
  driver: LogDriver,
  entries: StreamEntry[],
  now = Date.now(),
): Promise<StreamEntry[]> {
  const lapsed = await Promise.all(entries.map((entry) => leaseLapsed(driver, entry, now)));
  return entries.filter((_, index) => lapsed[index]);
}

/** Forgets what was read of a reply's segment, once it is reclaimed. */
export function forgetLease(segment: string): void {
  newest.delete(segment);
}

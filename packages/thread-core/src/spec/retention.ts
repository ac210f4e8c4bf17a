// The retention contract: how long a store keeps threads, and what a sweep reports. Types only.
import type { ThreadSummary } from "./thread-store.js";

/** A length of time: milliseconds, or a number with a unit (`"90s"`, `"15m"`, `"12h"`, `"30d"`, `"2w"`). */
export type RetentionDuration = number | `${number}${"ms" | "s" | "m" | "h" | "d" | "w"}`;

/** When a thread expires, as `create({ expiresAt })` and `update({ expiresAt })` take it; `null` clears it. */
export type ExpiryInput = Date | string | number;

/**
 * A store's (or a scope's) retention policy. A local thread expires at the earliest of its own `expiresAt`,
 * its last change plus `idleFor` and its creation plus `maxAge`, unless `keep` says to keep it. An expired
 * thread is gone for readers at once (`get` and `open` throw `ThreadNotFoundError`, `list` and `count`
 * leave it out); `store.sweep()` deletes it.
 */
export interface RetentionOptions {
  /** Expire a thread this long after its last change (append, update, rollback…). @default never */
  idleFor?: RetentionDuration;
  /** Expire a thread this long after it was created, however busy. @default never */
  maxAge?: RetentionDuration;
  /** Return true to keep a thread that would expire (a pinned chat, a legal hold). Called often: keep it cheap. */
  keep?: (summary: ThreadSummary) => boolean;
  /** The clock expiry is measured by, in epoch milliseconds (tests move it). @default Date.now */
  now?: () => number;
}

/** What `store.sweep` reports as it goes and when it ends. */
export interface SweepProgress {
  /** Expired threads found (candidates read and found expired). */
  examined: number;
  /** Threads deleted. */
  deleted: number;
  /** Expired threads not deleted: kept by `keep`, or written to after the sweep picked them. */
  skipped: number;
}

/** Options of `store.sweep`. */
export interface SweepOptions {
  /** Stops the sweep between batches; what was deleted stays deleted, and a later sweep finishes the rest. */
  signal?: AbortSignal;
  /** Called after each batch. */
  onProgress?: (progress: SweepProgress) => void;
  /** How many threads one batch reads and deletes. @default 100 */
  batchSize?: number;
}

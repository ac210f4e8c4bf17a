// The retention contract: how long a store keeps threads, and what a sweep reports. Types only.
/** A length of time: milliseconds, or a number with a unit (`"90s"`, `"15m"`, `"12h"`, `"30d"`, `"2w"`). */
export type RetentionDuration = number | `${number}${"ms" | "s" | "m" | "h" | "d" | "w"}`;

/** When a thread expires, as `create({ expiresAt })` and `update({ expiresAt })` take it; `null` clears it. */
export type ExpiryInput = Date | string | number;

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

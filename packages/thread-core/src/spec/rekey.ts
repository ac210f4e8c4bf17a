// What `store.rekey` takes and reports: moving what an encrypted store holds onto its current key. Only types:
// ../encryption/rekey-store.ts does it.

/** Options of `store.rekey`. */
export interface RekeyOptions {
  /** Stops the walk between two batches; the report then says `complete: false`. Run it again to go on. */
  signal?: AbortSignal;
  /** Called after each batch with the report so far. */
  onProgress?(progress: RekeyReport): void;
  /** How many records are read per page, and messages per read of a segment. @default 100 */
  batchSize?: number;
}

/** What a `store.rekey` run did, and what still uses an old key. Counts are of sealed units. */
export interface RekeyReport {
  /** The key new writes use, which rekeyed units now use too. */
  current: string;
  /** Records (threads and saved states) walked. */
  records: number;
  /** Segments walked (each once per run, however many threads share it). */
  segments: number;
  /** Units moved from each old key id to `current`. */
  rewritten: Record<string, number>;
  /**
   * Units still under each old key id when the run ended: changed by a writer while they were being moved
   * (they are moved on the next run), or not reached because the run was stopped. Empty after a complete run
   * that no writer raced: the old keys can then be dropped from `encryption.keys`.
   */
  remaining: Record<string, number>;
  /**
   * Units found stored in clear (a store opened with `allowPlaintext`, migrating to encryption): how many
   * were sealed with `current`, and how many were still clear when the run ended (a writer raced them, or the
   * run was stopped). After a complete run with `remaining: 0`, `allowPlaintext` can be turned off.
   */
  plaintext: { sealed: number; remaining: number };
  /**
   * With per-owner keys only: `rewritten` and `remaining` by whose key sealed the units, one entry per owner
   * met (no `owner`: threads without one), sorted by owner. An owner whose `remaining` is empty after a
   * complete run no longer needs an old key; one listed there still does (run rekey again first).
   */
  owners?: RekeyOwnerReport[];
  /** True when every record of the store (or scope) was walked. */
  complete: boolean;
}

/** What a rekey moved and left, for one owner's keys (`RekeyReport.owners`). */
export interface RekeyOwnerReport {
  /** The owner; absent for the key of threads without an owner. */
  owner?: string;
  /** Units of this owner moved from each old key id to `current`. */
  rewritten: Record<string, number>;
  /** Units of this owner still under each old key id when the run ended. */
  remaining: Record<string, number>;
}

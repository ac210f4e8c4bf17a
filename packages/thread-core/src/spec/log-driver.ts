// The `LogDriver` contract: the storage primitives a local thread store implements, and the records and changes
// they exchange with thread-core. Only types: the helpers built on them (`newHeadSegment`, `deleteRecord`, …)
// and `OPERATIONS_KEPT` live in ../local/log-driver.ts, which re-exports these.
import type { JsonObject } from "./json-value.js";
import type { Message } from "./message.js";
import type { HistoryEvent } from "./thread.js";
import type { ListOrder } from "./thread-store.js";

/**
 * The storage primitives a local thread store implements (memory, fs, redis). Everything else — forks,
 * checkpoints, rollbacks, views, import and export — is built once on top of them in `LogThread`.
 *
 * The model: a thread's messages are a chain of append-only segments. A segment holds its own messages and
 * points at a prefix of another (`base`). A thread record points at its head segment, which only that thread
 * appends to. Segments never change except by appending to a head, so any prefix of a segment is immutable
 * and can be shared by forks and checkpoints.
 */
export interface LogDriver {
  readonly specificationVersion: "v1";
  /** The package that implements the driver, named in its errors (`adapter-fs`). */
  readonly source: string;
  /** The thread type of the store's local threads (`memory`, `fs`, `redis`). */
  readonly nativeType: string;

  /**
   * The record stored under `id`, a local thread's log head or a saved state, or undefined. `known` is the
   * caller's last copy of it: a driver whose record still has that revision and head may answer with it
   * (the same object) instead of reading metadata, context and events, so a refresh costs the same however
   * many events the thread has.
   */
  read(id: string, known?: LogRecord): Promise<StoredRecord | undefined>;
  /** Creates a local thread and its (new, empty) head segment; `ThreadExistsError` if `id` is taken. */
  createLog(record: LogRecord, head: SegmentInfo): Promise<void>;
  /** Applies one change atomically; see `LogChange` for the order of steps. */
  commit(id: string, change: LogChange): Promise<CommitResult>;
  /** Writes a state document under `id`; `ConflictError` if `id` holds a local thread's log. */
  putState(id: string, state: JsonObject, options?: { ifRevision?: number }): Promise<StateRecord>;
  /**
   * Removes the record; segments no record reaches any more are reclaimed as the driver documents. With
   * `ifRevision` (only passed when `fencedDelete` is true), a record at another revision is a
   * `ConcurrencyError` and nothing is removed: checked in the same atomic step as the removal.
   */
  delete(id: string, options?: { ifRevision?: number }): Promise<boolean>;
  /**
   * True when `delete` checks `{ ifRevision }` atomically. Without it, a delete with `ifRevision` is an
   * `UnsupportedOperationError` rather than a delete that ignores the revision.
   */
  readonly fencedDelete?: boolean;
  /**
   * Optional: what an operator must still do after `store.erase` for deleted bytes to leave the backend
   * (PostgreSQL: `VACUUM`), given in the erasure report. Absent when a delete removes them.
   */
  readonly erasureFollowUp?: string;
  /**
   * Optional: called by `store.erase` after the owner's records are deleted (and on every run, so a run
   * stopped before it is finished by the next): removes what an index keeps of `owner` for threads that
   * have no record of that owner any more (the fs catalogue's journal lines and snapshot), and what a layer
   * keeps in memory of the deleted threads (the encrypting layer's plaintext caches). A driver whose delete
   * leaves nothing of the owner behind has none.
   */
  forgetOwner?(owner: string): Promise<void>;
  /** Record ids in ascending code-unit order, after `cursor` (an id), starting with `prefix`. */
  list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]>;

  /**
   * Optional: the records `store.list` shows for `query`, in its order, strictly after `query.after`, at most
   * `query.limit`: only records of exactly `query.scope` (ids that start with it and hold no further scope),
   * of `query.owner` (`catalogueEntry` says whose a record is), matching `where`, `prefix` and `until`. A
   * driver implements it with an index, so a page of one owner's newest threads costs O(page) however many
   * threads the store and the owner hold. Without it, `store.list` scans every record (`scanCatalogue`).
   * `query.prefix` is of the id within the scope: a record stored as `scope + id` matches when `id` starts with it.
   * A log's `events` may be left out of what it returns: listing reads none.
   */
  catalogue?(query: CatalogueQuery): Promise<StoredRecord[]>;
  /**
   * Optional: how many records `catalogue` would give for `query` without a limit, when the driver can count
   * them without reading each; undefined when it cannot for this query (`store.count` then refuses).
   */
  countCatalogue?(query: CountQuery): Promise<number | undefined>;
  /**
   * Optional: the log records of exactly `query.scope` whose own `expiresAt` (kept in the context's
   * `$catalogue` key, see `catalogueOf`) is at most `query.until`, by `expiresAt` then id, strictly after
   * `query.after`, at most `query.limit`. A driver implements it with an index by expiry, so a sweep costs
   * O(expired). Without it, a sweep finds threads with their own `expiresAt` by reading every record.
   */
  expiring?(query: ExpiryQuery): Promise<StoredRecord[]>;

  segment(id: string): Promise<SegmentInfo | undefined>;
  /**
   * The segment's own messages with offsets in [from, to), in a new array the caller owns: callers hand it on
   * (a one-page read is returned to the application as is) and may change it, so a driver never returns an
   * array it keeps.
   */
  readSegment(id: string, from: number, to: number): Promise<Message[]>;
  /** Where `messageId` is among the segment's first `before` own messages. */
  locate(id: string, messageId: string, before: number): Promise<{ offset: number } | undefined>;
  /**
   * Own offsets, below `before`, of the segment's system messages, so views keep them without a full read.
   * Expected in ascending order (every built-in driver gives them so); another order is accepted and sorted.
   */
  systemOffsets(id: string, before: number): Promise<number[]>;
  /**
   * Writes `messages` at own offsets `from…` of a segment that is no thread's head, creating it if absent.
   * Offsets already present must hold the same message ids (else `ConflictError`); a live head is never extended.
   */
  importSegment(
    segment: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ): Promise<void>;
  /**
   * Optional: whole segments (each from offset 0), bases before the segments that continue them, each by the
   * rules of `importSegment`. A driver that can write many segments cheaper together than one by one (fs: one
   * fsync barrier per batch instead of several fsyncs per segment) implements it; `importLog` uses it when present.
   */
  importSegments?(
    segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>,
    options?: SegmentWriteOptions,
  ): Promise<void>;
  /**
   * Optional: removes segment `id` when nothing references it (no record's head, history event or segment
   * that continues it), as a delete reclaims segments; left as it is when something does, or absent. thread-core
   * calls it for a streamed reply's segment once the reply landed in the log (or its thread was deleted), which
   * would otherwise stay as an imported segment no thread uses does.
   */
  dropSegment?(id: string): Promise<void>;
  /**
   * Optional: true when `commit` reclaims `LogChange.reclaim` in the same atomic step, so a streamed reply
   * lands and its batches go in one round trip. Without it thread-core calls `dropSegment` after the commit.
   */
  readonly reclaimsInCommit?: boolean;
  /** A new segment id for `threadId`'s head; lets a store place it beside the thread (a Redis hash slot). */
  newSegmentId?(threadId: string): string;
  /**
   * Optional: calls `listener` soon after any process writes messages into `segment` (a streamed reply's
   * batches), until the returned function is called. Followers of a reply wake up on it; without it they
   * poll. A call carries nothing: a missed one costs a poll interval, an extra one a read.
   */
  watch?(segment: string, listener: () => void): () => void | Promise<void>;
  /**
   * Optional: tells the `watch`ers of every process that `segment` got messages, for stores whose writes
   * wake nobody by themselves (Redis pub/sub, PostgreSQL NOTIFY). Called after each batch of a reply.
   */
  notify?(segment: string): Promise<void>;
  /**
   * Optional (key rotation, `store.rekey`): replaces, in one atomic step each, the stored message at own
   * `offset` of `segment` by `replacement`, only where the stored message is still exactly `expected` (as
   * `readSegment` gave it); answers, for each rewrite, whether it was made. Missing segments and offsets are
   * skipped, never created. See `MessageRewrite` for why this does not break the immutability of segments.
   */
  rewriteMessages?(segment: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]>;
  /**
   * Optional: true when a `rewriteMessages` call costs the whole segment however few messages it rewrites
   * (a copy of the segment swapped in). A rekey then gives it a segment's rewrites in as few calls as its
   * memory bound allows, instead of one call per batch: a segment copied once per run, not once per batch.
   */
  readonly rewritesWholeSegments?: boolean;
  /**
   * Optional (key rotation): replaces, in one atomic step, a log record's stored `metadata`, `context` and
   * `end` (each only when given) and the events named, each only where it is still exactly `expected` (as
   * `read` gave it); false, writing nothing at all, when any of them changed or the record is gone. The
   * revision and `updatedAt` stay as they are: nothing a reader sees changed. Appends rewrite the end (or,
   * without `storesEnd`, the context that holds it), so a rewrite that leaves it out never races them.
   */
  rewriteRecord?(id: string, rewrite: RecordRewrite): Promise<boolean>;
  /**
   * Optional: true when the driver keeps `LogRecord.end`: stores `LogChange.end` (and `createLog`'s and
   * `rewriteRecord`'s) where it stores the record's `length`, in the same atomic step, on every commit path
   * (its plain-append one included), and hands it back on `read` and `commit`. An encrypting store then
   * keeps the thread's authenticated end there instead of in the record's context, so an append leaves the
   * context alone. Without it the end goes in the context.
   */
  readonly storesEnd?: boolean;
  close(): Promise<void>;
}

/**
 * What thread-core tells a driver about segments it writes outside a commit: the owner of the thread they
 * are for, so a driver that encrypts per owner seals them with that owner's key. Plain drivers ignore it.
 */
export interface SegmentWriteOptions {
  owner?: string;
  /**
   * A streamed reply's batch: it must be visible to readers in other processes once the call returns and
   * survive the writing process being killed, but need not be on stable storage (no fsync, no synchronous
   * commit): the reply's `end` lands the message durably and a power loss before it loses the reply's tail,
   * as documented ("flushed at `end()`"). A driver may ignore it and write durably.
   */
  interim?: boolean;
}

/**
 * One message re-encrypted in place. Segments are immutable, and this keeps what that promises: `replacement`
 * has the same id, role and `createdAt`, opens to the same contents at the same segment and offset (the same
 * associated data), and differs from `expected` only in its sealed unit (key id, owner, check, nonce and
 * ciphertext), or, for a message stored in clear during an `allowPlaintext` window, in being sealed. A reader
 * sees one or the other, both of which read as the same message; an append writes past every existing
 * offset, so it never races with a rewrite.
 */
export interface MessageRewrite {
  offset: number;
  expected: Message;
  replacement: Message;
}

/** A record's sealed fields re-encrypted in place, each fenced by its stored form; a field left out is left alone. */
export interface RecordRewrite {
  metadata?: { expected: Record<string, unknown>; replacement: Record<string, unknown> };
  context?: { expected: Record<string, unknown>; replacement: Record<string, unknown> };
  /** Events by index (events are append-only, so an index keeps naming the same event). */
  events: Array<{ index: number; expected: HistoryEvent; replacement: HistoryEvent }>;
  /** The record's `end` (drivers with `storesEnd`), fenced by the stored one; `expected` undefined: none stored. */
  end?: { expected: string | undefined; replacement: string };
}

/** One segment of a local thread's log: the prefix it continues and where it starts. */
export interface SegmentInfo {
  id: string;
  /** The prefix this segment continues, or null for a thread's first segment. */
  base: { segment: string; offset: number } | null;
  /** How many messages come before the segment's first own message. */
  start: number;
  createdAt: string;
}

/** A local thread's record as a driver stores it: revision, head segment, length and history. */
export interface LogRecord {
  kind: "log";
  id: string;
  type: string;
  createdAt: string;
  updatedAt: string;
  revision: number;
  metadata: Record<string, unknown>;
  context: Record<string, unknown>;
  head: string;
  /** The number of messages in the thread. */
  length: number;
  /** Checkpoints, rollbacks and the fork the thread came from, oldest first. */
  events: HistoryEvent[];
  /**
   * The last `OPERATIONS_KEPT` (100) changes made with an `operationId`, oldest first; absent when none was. A
   * driver stores it as it stores `metadata`: thread-core computes it and hands it over in `LogChange`.
   */
  operations?: AppliedOperation[];
  /**
   * Opaque to the driver (`storesEnd`): what an encrypting store authenticates the log's end with (its
   * head and length). Written with `length`, in the same atomic step; absent when never given.
   */
  end?: string;
}

/** A change applied under the caller's operation id, kept so that a retry of it is a no-op. */
export interface AppliedOperation {
  id: string;
  /** The thread's revision after the change. */
  revision: number;
  /** The end of the log right after the change; `messages` are read back from the chain ending here. */
  end: { segment: string; offset: number };
  /** The ids of the messages the change returned, in order. */
  messages: string[];
}

/** A stored state that is not a log (a plain state type), as a driver keeps it. */
export interface StateRecord {
  kind: "state";
  id: string;
  revision: number;
  updatedAt: string;
  state: JsonObject;
}

/** Either kind of record a driver keeps: a thread's log or a plain state. */
export type StoredRecord = LogRecord | StateRecord;

/** A record as a driver lists it: id, type and when it last changed. */
export interface RecordSummary {
  id: string;
  type: string;
  updatedAt: string;
}

/**
 * One atomic change to a local thread. The driver, holding the thread's lock or in one server-side step:
 * 1. throws `ThreadNotFoundError` if there is no log record; `ConcurrencyError` if `ifRevision` differs;
 *    `HeadMovedError` if the head is not `expectHead` (the caller re-reads and retries);
 * 2. for a rollback event, fills `event.from` with the current end, then makes `newHead` the head
 *    (length = newHead.start);
 * 3. appends `append`. thread-core plans it (`AppendPlan`): each id comes once, and none is held by an
 *    ancestor segment. If the head's own messages hold any of its ids (a retry, or a concurrent writer),
 *    the driver writes nothing at all (no step runs) and answers `{ held }`, the stored messages under
 *    those ids; thread-core compares them (equal: skipped, different: `ConflictError`) and commits the rest;
 * 4. for a checkpoint event, fills `event.checkpoint.point` with the end after the append;
 * 5. replaces metadata / context / operations when given; and if anything changed (a change that carries
 *    `operations` always does), bumps `revision`, sets `updatedAt`, fills `event.revision` and records the event.
 *
 * A rollback that also appends (`newHead` and `append`) writes the messages into the new head, which is
 * empty: no `held` answer. A change with `operations` always has `ifRevision`, so thread-core knows the log
 * it was planned on is the one it lands on.
 */
export interface LogChange {
  ifRevision?: number;
  expectHead: string;
  newHead?: SegmentInfo;
  append?: Message[];
  event?: HistoryEvent;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** The record's operations after the change, to store in place of its current ones. */
  operations?: AppliedOperation[];
  /**
   * The record's `end` after the change (drivers with `storesEnd`), stored with its length; kept when absent.
   * It names `expectHead` (or `newHead`): a driver that moved the thread onto a head continuing `expectHead`
   * (adapter-fs's lock takeover) answers `HeadMovedError` rather than land it there.
   */
  end?: string;
  /**
   * A segment to reclaim once the change is made, as `dropSegment` would (a landed reply's batches), in the
   * same atomic step; only given to a driver whose `reclaimsInCommit` is true, and never with `held`.
   */
  reclaim?: string;
  /**
   * A streamed reply's begin (its entry in the context): as `SegmentWriteOptions.interim`, visible and
   * surviving the writer's death once the commit returns, but not necessarily on stable storage yet. A driver
   * may ignore it and commit durably.
   */
  interim?: boolean;
  /**
   * The record the caller planned the change on (its last read or commit). A driver whose record still
   * has this revision and head may build the result from it instead of reading metadata, context and
   * events back, so a commit costs the same however many events the thread has. Its arrays are shared,
   * never changed.
   */
  known?: LogRecord;
}

/** What a driver's `commit` answers: the record after the change and the messages as stored. */
export interface CommitResult {
  /** The record after the change; with `held`, unchanged (a driver may give back the caller's `known`). */
  record: LogRecord;
  /** The appended messages as stored, in input order. */
  messages: Message[];
  /** When present, nothing was written: the messages the head holds under ids of `append` (step 3). */
  held?: Message[];
}

/** A position in a listing: the sort key (empty in id order) and the id, compared in that order. */
export interface ListPosition {
  key: string;
  id: string;
}

/**
 * What a store's driver is asked for (`LogDriver.catalogue`): the records of one scope that match, in
 * order, strictly after `after`, at most `limit` of them.
 */
export interface CatalogueQuery {
  /** The scope's key prefix (`ScopedLogDriver` sets it); "" for the unscoped store: only ids of exactly this scope. */
  scope: string;
  owner?: string;
  where?: JsonObject;
  prefix?: string;
  order: ListOrder;
  direction: "asc" | "desc";
  after?: ListPosition;
  /** An ascending walk by last change lists only records whose key is at most this. */
  until?: string;
  limit: number;
}

/** The parts of a query that a store counts by (`LogDriver.countCatalogue`). */
export type CountQuery = Pick<CatalogueQuery, "scope" | "owner" | "where">;

/** What a sweep asks a driver's expiry index for (`LogDriver.expiring`). */
export interface ExpiryQuery {
  /** The scope's key prefix, as in `CatalogueQuery`. */
  scope: string;
  /** Only records whose `expiresAt` is at most this ISO time. */
  until: string;
  /** The position (`key`: the record's `expiresAt`) after which to continue. */
  after?: ListPosition;
  limit: number;
}

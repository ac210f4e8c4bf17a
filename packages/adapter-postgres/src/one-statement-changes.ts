import type { Message } from "@skein/thread-core";
import { catalogueOf, type LogChange, type LogRecord, type SegmentInfo } from "@skein/thread-core/driver";
import { idKey } from "./id-keys.js";
import { fromJsonb, toJsonb } from "./jsonb-value.js";
import { type PostgresConnection, type PreparedStatement, preparedStatement } from "./postgres-connection.js";
import type { TableNames } from "./table-names.js";

/** SQLSTATE unique_violation: an appended id is in the head segment already. */
const UNIQUE_VIOLATION = "23505";

/**
 * The changes a streamed reply makes, each as one statement (one round trip) instead of a transaction of
 * several: its `beginMessage` and `end` change the record's context (its `$streams` entry), `end` with the
 * message appended, and its batches' segment is reclaimed once the message landed. Each statement writes
 * only when every condition the checked path would check holds; else it writes nothing and the caller
 * takes the checked path, which finds out which promise refused it.
 */
export class OneStatementChanges {
  // Each in two forms: for one message (its id, flag and text as plain parameters), and for any number (as
  // arrays, which pg writes as array literals, escaping every quote of the JSON, and the server parses again).
  readonly #contextCommit: Statements;
  readonly #dropReplySegment: PreparedStatement;
  readonly #firstBatch: Statements;
  readonly #nextBatch: Statements;

  constructor(readonly connection: PostgresConnection) {
    const names = connection.names;
    this.#contextCommit = statements((rows) => contextCommitStatement(names, rows));
    this.#dropReplySegment = preparedStatement(dropReplySegmentStatement(names));
    this.#firstBatch = statements((rows) => firstBatchStatement(names, rows));
    this.#nextBatch = statements((rows) => nextBatchStatement(names, rows));
  }

  /**
   * Writes `messages` at own offsets `from…` of a segment that continues none (a reply's batches): the
   * segment made with them when `from` is 0, else appended right after its last message. False when the
   * statement wrote nothing (the segment exists already at 0, has a base, is short of `from` or longer, is a
   * record's head, or holds an offset or id): `importSegment`'s checked transaction then decides.
   */
  async importBatch(
    info: SegmentInfo,
    messages: Message[],
    from: number,
    interim: boolean,
  ): Promise<boolean> {
    if (info.base !== null || info.start !== 0 || messages.length === 0) return false;
    const values = [idKey(info.id), ...messageParameters(messages), interim];
    const rows = await this.connection.prepared(
      (from === 0 ? this.#firstBatch : this.#nextBatch)[messages.length === 1 ? "one" : "many"],
      from === 0 ? [...values, info.createdAt] : [...values, from],
      UNIQUE_VIOLATION,
    );
    return (rows?.length ?? 0) > 0;
  }

  /**
   * Whether `change` is a context change (with or without appended messages), pinned to the revision and
   * head of the caller's `known` copy: what `contextCommit` does in one statement.
   */
  fits(
    id: string,
    change: LogChange,
  ): change is LogChange & { context: Record<string, unknown>; known: LogRecord } {
    const known = change.known;
    return (
      change.context !== undefined &&
      !change.newHead &&
      !change.event &&
      !change.metadata &&
      !change.operations &&
      known?.id === id &&
      change.ifRevision === known.revision &&
      change.expectHead === known.head
    );
  }

  /** The change as one statement; undefined when it wrote nothing (the checked path then runs). */
  async contextCommit(
    id: string,
    change: LogChange & { context: Record<string, unknown>; known: LogRecord },
  ): Promise<{ record: LogRecord; messages: Message[] } | undefined> {
    const append = change.append ?? [];
    const updatedAt = new Date().toISOString();
    const texts = append.map((message) => toJsonb(message));
    const { owner, expiresAt } = catalogueOf(change.context);
    const rows = await this.connection.prepared<{ revision: string; length: string }>(
      this.#contextCommit[append.length === 1 ? "one" : "many"],
      [
        idKey(id),
        change.ifRevision,
        idKey(change.expectHead),
        updatedAt,
        ...messageParameters(append, texts),
        toJsonb(change.context),
        JSON.stringify(change.context),
        owner ?? null,
        expiresAt ?? null,
        change.reclaim === undefined ? null : idKey(change.reclaim),
        change.end ?? null,
        change.interim === true,
      ],
      UNIQUE_VIOLATION,
    );
    const row = rows?.[0];
    if (!row) return undefined;
    return {
      record: {
        ...change.known,
        revision: Number(row.revision),
        length: Number(row.length),
        updatedAt,
        context: JSON.parse(JSON.stringify(change.context)),
        ...(change.end === undefined ? {} : { end: change.end }),
      },
      messages: texts.map((text) => fromJsonb<Message>(JSON.parse(text))),
    };
  }

  /**
   * Reclaims a segment that continues none (a reply's batches) when nothing references it and no record
   * has it as its head; false when the statement did not (the segment has a base, or is referenced, or is
   * gone): the caller's checked path then decides.
   */
  async dropReplySegment(segment: string): Promise<boolean> {
    const rows = await this.connection.prepared<{ key: Buffer }>(this.#dropReplySegment, [idKey(segment)]);
    return (rows?.length ?? 0) > 0;
  }
}

/** A statement for one message and one for any number (see `MessageRows`). */
interface Statements {
  one: PreparedStatement;
  many: PreparedStatement;
}

function statements(text: (rows: MessageRows) => string): Statements {
  return { one: preparedStatement(text(oneMessage)), many: preparedStatement(text(manyMessages)) };
}

/**
 * The messages a statement writes, from three parameters: their ids, system flags and JSON texts. `rows(n)`
 * is a FROM item `t(id, sys, body, ord)` (ord counts from 1) on parameters $n to $n+2; `count(n)` how many.
 */
interface MessageRows {
  rows(first: number): string;
  count(first: number): string;
}

const oneMessage: MessageRows = {
  rows: (first) =>
    `(SELECT $${first}::bytea AS id, $${first + 1}::boolean AS sys, $${first + 2}::text AS body, 1::bigint AS ord) AS t`,
  count: () => "1",
};

const manyMessages: MessageRows = {
  rows: (first) =>
    `unnest($${first}::bytea[], $${first + 1}::boolean[], $${first + 2}::text[]) WITH ORDINALITY AS t(id, sys, body, ord)`,
  count: (first) => `cardinality($${first}::bytea[])`,
};

/** The three parameters `MessageRows` reads: plain values for one message, arrays for any other number. */
function messageParameters(
  messages: Message[],
  texts = messages.map((message) => toJsonb(message)),
): unknown[] {
  if (messages.length === 1) {
    const message = messages[0] as Message;
    return [idKey(message.id), message.role === "system", texts[0]];
  }
  return [
    messages.map((message) => idKey(message.id)),
    messages.map((message) => message.role === "system"),
    texts,
  ];
}

/**
 * A statement's first step when its boolean parameter `$n` is true (a streamed reply's begin and batches,
 * `LogChange.interim`): `synchronous_commit` off for the statement's own (implicit) transaction, which
 * then returns before its WAL is flushed. Visible to every session at once and proof against the writer's
 * death, but a crash of the server can lose it; WAL is flushed in order, so a later synchronous commit (the
 * reply's `end`) makes it durable too. Referenced in the FROM of the statement's first write, which
 * evaluates it once (a CTE with a volatile function is never inlined nor left out).
 */
function interimStep(parameter: number): string {
  return `interim AS (
      SELECT CASE WHEN $${parameter}::boolean THEN set_config('synchronous_commit', 'off', true) END AS setting
    )`;
}

/**
 * `appendStatement` (postgres-log-driver.ts) that also replaces the context, with the columns a context
 * change keeps beside it (`updateLog` in record-rows.ts: its text, the owner and the own expiry), and
 * reclaims `LogChange.reclaim` ($12, or NULL) as `dropReplySegmentStatement` does, once the record changed;
 * $13 is the record's end (`LogChange.end`, NULL keeps it) and $14 `LogChange.interim` (`interimStep`). Zero messages append nothing. An id the head segment holds
 * breaks the (segment, id) unique index, and the statement changes nothing.
 */
function contextCommitStatement(names: TableNames, messages: MessageRows): string {
  return `WITH ${interimStep(14)}, r AS (
      UPDATE ${names.records} SET revision = revision + 1, updated_at = $4,
        length = length + ${messages.count(5)},
        context = $8::jsonb, context_text = $9, owner = $10, expires_at = $11,
        log_end = COALESCE($13::text, log_end)
      FROM interim
      WHERE key = $1 AND kind = 'log' AND head = $3 AND revision = $2::bigint
      RETURNING revision, length, head_start
    ), m AS (
      INSERT INTO ${names.messages} (segment, "offset", id, system, message)
      SELECT $3, r.length - ${messages.count(5)} - r.head_start + t.ord - 1, t.id, t.sys, t.body::jsonb
      FROM r, ${messages.rows(5)}
    ), d AS (
      DELETE FROM ${names.segments} AS segment
      WHERE segment.key = $12::bytea AND segment.refs = 0 AND segment.base IS NULL AND EXISTS (SELECT 1 FROM r)
        AND NOT EXISTS (SELECT 1 FROM ${names.records} WHERE head = $12::bytea)
      RETURNING segment.key
    ), dm AS (
      DELETE FROM ${names.messages} WHERE segment IN (SELECT key FROM d)
    )
    SELECT revision, length FROM r`;
}

/**
 * `SegmentRows.drop` for a segment without a base, in one statement: the segment row is deleted (and so
 * locked) only when it has no references and no record has it as its head, and its messages go with it.
 */
function dropReplySegmentStatement(names: TableNames): string {
  return `WITH s AS (
      DELETE FROM ${names.segments} AS segment
      WHERE segment.key = $1 AND segment.refs = 0 AND segment.base IS NULL
        AND NOT EXISTS (SELECT 1 FROM ${names.records} WHERE head = $1)
      RETURNING segment.key
    ), m AS (
      DELETE FROM ${names.messages} WHERE segment IN (SELECT key FROM s)
    )
    SELECT key FROM s`;
}

/**
 * A reply's first batch: its segment row and messages in one statement, the row made only when no segment
 * or record head has the id (a segment that exists already is left to the checked path). $5 is
 * `SegmentWriteOptions.interim` (`interimStep`).
 */
function firstBatchStatement(names: TableNames, messages: MessageRows): string {
  return `WITH ${interimStep(5)}, s AS (
      INSERT INTO ${names.segments} (key, base, base_offset, start, created_at, refs)
      SELECT $1, NULL, NULL, 0, $6, 0
      FROM interim
      WHERE NOT EXISTS (SELECT 1 FROM ${names.records} WHERE head = $1)
      ON CONFLICT (key) DO NOTHING
      RETURNING key
    )
    INSERT INTO ${names.messages} (segment, "offset", id, system, message)
    SELECT s.key, t.ord - 1, t.id, t.sys, t.body::jsonb
    FROM s, ${messages.rows(2)}
    RETURNING 1`;
}

/**
 * A reply's next batch, right after the segment's last message. The segment row is share-locked, so a
 * reclaim (which deletes it) waits for the batch or is waited for; offsets and ids already held break the
 * primary key or the (segment, id) index, and nothing is written. $5 is `SegmentWriteOptions.interim`
 * (`interimStep`).
 */
function nextBatchStatement(names: TableNames, messages: MessageRows): string {
  return `WITH ${interimStep(5)}, s AS (
      SELECT key FROM ${names.segments} WHERE key = $1 AND base IS NULL FOR SHARE
    )
    INSERT INTO ${names.messages} (segment, "offset", id, system, message)
    SELECT s.key, $6::bigint + t.ord - 1, t.id, t.sys, t.body::jsonb
    FROM interim, s, ${messages.rows(2)}
    WHERE COALESCE((SELECT max("offset") + 1 FROM ${names.messages} WHERE segment = $1), 0) = $6::bigint
      AND NOT EXISTS (SELECT 1 FROM ${names.records} WHERE head = $1)
    RETURNING 1`;
}

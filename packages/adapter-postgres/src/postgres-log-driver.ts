import {
  ConcurrencyError,
  ConflictError,
  type HistoryEvent,
  type JsonObject,
  type Message,
  SkeinError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "@skein/thread-core";
import {
  type CatalogueQuery,
  type CommitResult,
  type CountQuery,
  type ExpiryQuery,
  eventSegments,
  HeadMovedError,
  importConflicts,
  type LogChange,
  type LogDriver,
  type LogRecord,
  type MessageRewrite,
  messageConflict,
  type RecordRewrite,
  type RecordSummary,
  type SegmentInfo,
  type SegmentWriteOptions,
  type StateRecord,
  type StoredRecord,
} from "@skein/thread-core/driver";
import type { PoolClient } from "pg";
import { type CatalogueConnection, catalogueCount, cataloguePage, expiringPage } from "./catalogue-rows.js";
import { SOURCE, source } from "./errors.js";
import { idFromKey, idKey, prefixEnd } from "./id-keys.js";
import { fromJsonb, toJsonb } from "./jsonb-value.js";
import { OneStatementChanges } from "./one-statement-changes.js";
import { type PostgresConnection, type PreparedStatement, preparedStatement } from "./postgres-connection.js";
import { type RecordRow, RecordRows } from "./record-rows.js";
import { ReplyWakeups } from "./reply-wakeups.js";
import { rewriteMessageRows, rewriteRecordRows } from "./rewrite-rows.js";
import { type SegmentRow, SegmentRows, segmentInfo } from "./segment-rows.js";
import type { TableNames } from "./table-names.js";

/**
 * A streamed reply's begin and batches (`LogChange.interim`, `SegmentWriteOptions.interim`) on the checked
 * path: the transaction commits without waiting for its WAL flush (see `interimStep` in
 * one-statement-changes.ts, which does the same in the one-statement path).
 */
const INTERIM_COMMIT = "SET LOCAL synchronous_commit = off";

/**
 * Local thread logs in PostgreSQL. Every change is one transaction that locks the thread's record row
 * first, so ids, revisions and the head are checked where they are written; reads of a range of messages
 * use the primary key (segment, offset), never a scan.
 */
export class PostgresLogDriver implements LogDriver {
  readonly specificationVersion = "v1";
  readonly source = SOURCE;
  readonly nativeType = "postgres";
  /** A landed reply's batches go in its commit (`LogChange.reclaim`). */
  readonly reclaimsInCommit = true;
  /** Kept in the record row's `log_end` (schema 6), set with `length` by every statement that changes it. */
  readonly storesEnd = true;
  readonly #records: RecordRows;
  readonly #segments: SegmentRows;
  readonly #appendStatement: PreparedStatement;
  readonly #appendOneStatement: PreparedStatement;
  readonly #wakeups: ReplyWakeups;
  readonly #oneStatement: OneStatementChanges;

  constructor(readonly connection: PostgresConnection) {
    this.#oneStatement = new OneStatementChanges(connection);
    this.#records = new RecordRows(connection.names);
    this.#segments = new SegmentRows(connection.names);
    this.#wakeups = new ReplyWakeups(connection);
    this.#appendStatement = preparedStatement(appendStatement(connection.names));
    this.#appendOneStatement = preparedStatement(appendOneStatement(connection.names));
  }

  async read(id: string, known?: LogRecord): Promise<StoredRecord | undefined> {
    const rows = await this.connection.query<RecordRow>(
      `SELECT * FROM ${this.connection.names.records} WHERE key = $1`,
      [idKey(id)],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.kind === "state") return this.#records.state(row);
    if (
      known?.id === id &&
      known.revision === Number(row.revision) &&
      known.head === idFromKey(row.head as Buffer)
    ) {
      return known;
    }
    const events = await this.connection.query<{ event: unknown }>(
      `SELECT event FROM ${this.connection.names.events} WHERE record = $1 ORDER BY seq`,
      [idKey(id)],
    );
    return this.#records.log(
      row,
      events.map((event) => fromJsonb<HistoryEvent>(event.event)),
    );
  }

  async createLog(record: LogRecord, head: SegmentInfo): Promise<void> {
    await this.connection.transaction(async (client) => {
      const inserted = await this.#records.insertLog(client, record, head.start);
      if (!inserted) throw new ThreadExistsError(record.id, source);
      await this.#segments.create(client, head, 1);
      const taken = record.events.flatMap(eventSegments);
      if (!(await this.#segments.retain(client, taken))) {
        const fork = record.events.find((event) => event.kind === "fork");
        if (fork) throw new ThreadNotFoundError(fork.parentId, source);
        throw new SkeinError(
          `A segment thread ${JSON.stringify(record.id)} needs is gone from the store.`,
          source,
        );
      }
      await this.#records.insertEvents(client, record.id, 0, record.events);
    });
  }

  commit(id: string, change: LogChange): Promise<CommitResult> {
    const plain =
      !change.newHead && !change.event && !change.metadata && !change.context && !change.operations;
    if (plain && (change.append?.length ?? 0) > 0 && change.known?.id === id) return this.#append(id, change);
    if (this.#oneStatement.fits(id, change)) return this.#contextCommit(id, change);
    return this.#checked(id, change);
  }

  /** A context change (a streamed reply's begin and end) in one statement, else the checked transaction. */
  async #contextCommit(
    id: string,
    change: LogChange & { context: Record<string, unknown>; known: LogRecord },
  ): Promise<CommitResult> {
    return (await this.#oneStatement.contextCommit(id, change)) ?? this.#checked(id, change);
  }

  /** Any change, in one transaction that locks the record row and checks everything before writing. */
  #checked(id: string, change: LogChange): Promise<CommitResult> {
    return this.connection.transaction(async (client) => {
      if (change.interim) await client.query(INTERIM_COMMIT);
      const row = await this.#records.lock(client, id);
      if (row?.kind !== "log") throw new ThreadNotFoundError(id, source);
      const revision = Number(row.revision);
      if (change.ifRevision !== undefined && change.ifRevision !== revision) {
        throw new ConcurrencyError(id, change.ifRevision, revision, source);
      }
      const headId = idFromKey(row.head as Buffer);
      if (headId !== change.expectHead) throw new HeadMovedError(id, source);
      const record = await this.#current(client, row, change.known);
      const append = change.append ?? [];
      const head = (await this.#segments.get(client, headId)) as SegmentRow;
      const headOffset = Number(row.length) - Number(head.start);
      if (!change.newHead && append.length > 0) {
        const held = await this.#segments.held(
          client,
          headId,
          append.map((message) => message.id),
          headOffset,
        );
        if (held.length > 0) return { record, messages: [], held };
      }
      const result = await this.#apply(client, record, head, change);
      if (change.reclaim !== undefined) await this.#segments.drop(client, change.reclaim);
      return result;
    });
  }

  /**
   * A plain append in one statement (see `appendStatement`), which writes only when the thread is a log at
   * the caller's head and revision and none of the ids is in the head segment: else it writes nothing, and
   * the checked transaction finds out which promise refused it (or applies the change, if the thread moved
   * on in between). The record is built from the caller's `known` copy when nothing else changed it since;
   * else it is read afresh.
   */
  async #append(id: string, change: LogChange): Promise<CommitResult> {
    const append = change.append as Message[];
    const known = change.known as LogRecord;
    const updatedAt = new Date().toISOString();
    const texts = append.map((message) => toJsonb(message));
    const key = idKey(id);
    const head = idKey(change.expectHead);
    const revision = change.ifRevision ?? null;
    const message = append[0] as Message;
    const end = change.end ?? null;
    // One message (the common case) as plain parameters: no arrays to write, escape and unnest.
    const rows = await this.connection.prepared<{ revision: string; length: string }>(
      append.length === 1 ? this.#appendOneStatement : this.#appendStatement,
      append.length === 1
        ? [key, revision, head, updatedAt, idKey(message.id), message.role === "system", texts[0], end]
        : [
            key,
            revision,
            head,
            updatedAt,
            append.map((each) => idKey(each.id)),
            append.map((each) => each.role === "system"),
            texts,
            end,
          ],
      UNIQUE_VIOLATION,
    );
    const row = rows?.[0];
    if (!row) return this.#checked(id, change);
    // The caller's copy, from the JSON text already made for the statement (a wrapped one is its own text).
    const messages = texts.map((text) => fromJsonb<Message>(JSON.parse(text)));
    if (Number(row.revision) === known.revision + 1 && known.head === change.expectHead) {
      return {
        record: {
          ...known,
          revision: Number(row.revision),
          length: Number(row.length),
          updatedAt,
          ...(change.end === undefined ? {} : { end: change.end }),
        },
        messages,
      };
    }
    // Another writer changed the thread since the caller read it: its metadata or history may be new. The
    // read may see later changes too, never fewer than this one.
    return { record: (await this.read(id)) as LogRecord, messages };
  }

  /** Steps 2, 4 and 5 of `LogChange` on a checked record. */
  async #apply(
    client: PoolClient,
    record: LogRecord,
    head: SegmentRow,
    change: LogChange,
  ): Promise<CommitResult> {
    const append = change.append ?? [];
    const next: LogRecord = { ...record };
    const event = change.event && (JSON.parse(JSON.stringify(change.event)) as HistoryEvent);
    let start = Number(head.start);
    if (change.newHead) {
      if (event?.kind === "rollback") event.from = endOf(record, start);
      await this.#segments.create(client, change.newHead, 1);
      next.head = change.newHead.id;
      next.length = change.newHead.start;
      start = change.newHead.start;
    }
    await this.#segments.write(client, next.head, append, next.length - start);
    next.length += append.length;
    if (event?.kind === "checkpoint") event.checkpoint.point = endOf(next, start);
    if (change.metadata) next.metadata = JSON.parse(JSON.stringify(change.metadata));
    if (change.context) next.context = JSON.parse(JSON.stringify(change.context));
    if (change.operations) next.operations = JSON.parse(JSON.stringify(change.operations));
    if (change.end !== undefined) next.end = change.end;
    const changed = Boolean(
      change.newHead || append.length > 0 || event || change.metadata || change.context || change.operations,
    );
    if (!changed) return { record, messages: [] };
    next.revision = record.revision + 1;
    next.updatedAt = new Date().toISOString();
    if (event) {
      event.revision = next.revision;
      next.events = [...record.events, event];
      // What the event points at stays alive while the history holds it.
      if (!(await this.#segments.retain(client, eventSegments(event)))) {
        throw new ThreadNotFoundError(record.id, source);
      }
      await this.#records.insertEvents(client, record.id, record.events.length, [event]);
    }
    await this.#records.updateLog(
      client,
      next,
      start,
      Boolean(change.metadata),
      Boolean(change.context),
      Boolean(change.operations),
      change.end !== undefined,
    );
    if (change.newHead) await this.#segments.release(client, [record.head]);
    return { record: next, messages: JSON.parse(JSON.stringify(append)) as Message[] };
  }

  /** The record as stored, from the caller's `known` copy when it is still current. */
  async #current(client: PoolClient, row: RecordRow, known: LogRecord | undefined): Promise<LogRecord> {
    const id = row.id;
    if (
      known?.id === id &&
      known.revision === Number(row.revision) &&
      known.head === idFromKey(row.head as Buffer)
    ) {
      return known;
    }
    const { rows } = await client.query(
      `SELECT event FROM ${this.connection.names.events} WHERE record = $1 ORDER BY seq`,
      [idKey(id)],
    );
    return this.#records.log(
      row,
      rows.map((event) => fromJsonb<HistoryEvent>(event.event)),
    );
  }

  putState(id: string, state: JsonObject, options: { ifRevision?: number } = {}): Promise<StateRecord> {
    return this.connection.transaction(async (client) => {
      const updatedAt = new Date().toISOString();
      const revision = await this.#records.putState(client, id, state, updatedAt, options.ifRevision);
      if (revision === undefined) {
        const row = await this.#records.lock(client, id);
        if (row?.kind === "log") {
          throw new ConflictError(
            `Thread ${JSON.stringify(id)} is a local thread of this store; its state is its log.`,
            undefined,
            source,
          );
        }
        throw new ConcurrencyError(id, options.ifRevision as number, Number(row?.revision ?? 0), source);
      }
      return { kind: "state", id, revision, updatedAt, state: JSON.parse(JSON.stringify(state)) };
    });
  }

  readonly fencedDelete = true;

  /**
   * Deleted rows stay in the table files (as dead tuples, then free space) until PostgreSQL rewrites the
   * pages: `store.erase` does not run `VACUUM FULL` itself, since it locks every table of the store while it
   * runs and cannot run inside a transaction; the report tells the operator to.
   */
  get erasureFollowUp(): string {
    const names = this.connection.names;
    const tables = [names.records, names.events, names.segments, names.messages].join(", ");
    return `run VACUUM FULL ${tables} (it locks those tables while it runs) for the deleted rows to leave the table files; WAL files and backups keep them until they are recycled`;
  }

  delete(id: string, options: { ifRevision?: number } = {}): Promise<boolean> {
    return this.connection.transaction(async (client) => {
      const row = await this.#records.lock(client, id);
      if (!row) return false;
      // Checked under the row lock taken above, so the check and the delete are one step.
      if (options.ifRevision !== undefined && Number(row.revision) !== options.ifRevision) {
        throw new ConcurrencyError(id, options.ifRevision, Number(row.revision), source);
      }
      await client.query(`DELETE FROM ${this.connection.names.records} WHERE key = $1`, [idKey(id)]);
      if (row.kind === "log") {
        const { rows } = await client.query(
          `DELETE FROM ${this.connection.names.events} WHERE record = $1 RETURNING event`,
          [idKey(id)],
        );
        const events = rows.map((event) => fromJsonb<HistoryEvent>(event.event));
        await this.#segments.release(client, [
          idFromKey(row.head as Buffer),
          ...events.flatMap(eventSegments),
        ]);
      }
      return true;
    });
  }

  async list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    const prefix = options.prefix ?? "";
    const low = options.after !== undefined && options.after >= prefix ? options.after : undefined;
    const rows = await this.connection.query<{ key: Buffer; type: string; updated_at: string }>(
      `SELECT key, type, updated_at FROM ${this.connection.names.records}
       WHERE key >= $1 AND ($2::bytea IS NULL OR key > $2) AND ($3::bytea IS NULL OR key < $3)
       ORDER BY key LIMIT $4`,
      [
        idKey(prefix),
        low === undefined ? null : idKey(low),
        prefix === "" ? null : (prefixEnd(prefix) ?? null),
        options.limit,
      ],
    );
    return rows.map((row) => ({ id: idFromKey(row.key), type: row.type, updatedAt: row.updated_at }));
  }

  /** A page of `store.list` from the indexes of schema 4 (see catalogue-rows.ts). */
  catalogue(query: CatalogueQuery): Promise<StoredRecord[]> {
    return cataloguePage(this.#catalogueConnection(), query);
  }

  /** The local threads past their own expiry, from schema 5's index (see catalogue-rows.ts). */
  expiring(query: ExpiryQuery): Promise<StoredRecord[]> {
    return expiringPage(this.#catalogueConnection(), query);
  }

  countCatalogue(query: CountQuery): Promise<number> {
    return catalogueCount(this.#catalogueConnection(), query);
  }

  #catalogueConnection(): CatalogueConnection {
    return {
      query: (text, values) => this.connection.query(text, values ?? []),
      records: this.#records,
      table: this.connection.names.records,
    };
  }

  async segment(id: string): Promise<SegmentInfo | undefined> {
    const rows = await this.connection.query<SegmentRow>(
      `SELECT * FROM ${this.connection.names.segments} WHERE key = $1`,
      [idKey(id)],
    );
    return rows[0] && segmentInfo(rows[0]);
  }

  async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    if (to <= from) return [];
    const rows = await this.connection.query<{ message: unknown }>(
      `SELECT message FROM ${this.connection.names.messages}
       WHERE segment = $1 AND "offset" >= $2 AND "offset" < $3 ORDER BY "offset"`,
      [idKey(id), from, to],
    );
    return rows.map((row) => fromJsonb<Message>(row.message));
  }

  async locate(id: string, messageId: string, before: number) {
    const rows = await this.connection.query<{ offset: string }>(
      `SELECT "offset" FROM ${this.connection.names.messages} WHERE segment = $1 AND id = $2 AND "offset" < $3`,
      [idKey(id), idKey(messageId), before],
    );
    return rows[0] && { offset: Number(rows[0].offset) };
  }

  async systemOffsets(id: string, before: number): Promise<number[]> {
    const rows = await this.connection.query<{ offset: string }>(
      `SELECT "offset" FROM ${this.connection.names.messages}
       WHERE segment = $1 AND system AND "offset" < $2 ORDER BY "offset"`,
      [idKey(id), before],
    );
    return rows.map((row) => Number(row.offset));
  }

  async importSegment(
    info: SegmentInfo,
    messages: Message[],
    from: number,
    options?: SegmentWriteOptions,
  ): Promise<void> {
    const interim = options?.interim === true;
    // A streamed reply's batch, the common import, in one statement; anything it cannot write is checked.
    if (await this.#oneStatement.importBatch(info, messages, from, interim)) return;
    const refuse = importConflicts(info.id, SOURCE);
    return this.connection.transaction(async (client) => {
      if (interim) await client.query(INTERIM_COMMIT);
      let segment = await this.#segments.get(client, info.id, true);
      if (!segment) {
        if (from !== 0) throw refuse.missingStart(from);
        if (info.base && !(await this.#segments.get(client, info.base.segment))) {
          throw refuse.missingBase(info.base.segment);
        }
        // Concurrent imports of one segment (forks share it): the first creates it, the rest wait for its row.
        await this.#segments.createIfMissing(client, info, 0);
        segment = (await this.#segments.get(client, info.id, true)) as SegmentRow;
      }
      const length = await this.#segments.length(client, info.id);
      const existing = Math.max(0, Math.min(messages.length, length - from));
      const stored = await this.readSegmentIn(client, info.id, from, from + existing);
      for (let index = 0; index < existing; index++) {
        const message = messages[index] as Message;
        const held = stored[index] as Message;
        if (held.id !== message.id) throw refuse.otherMessage(from + index, message.id);
        const conflict = messageConflict(held, message, SOURCE);
        if (conflict) throw conflict;
      }
      const fresh = messages.slice(existing);
      if (fresh.length === 0) return;
      if (from + existing !== length) throw refuse.gap(from + existing);
      const { rows } = await client.query(
        `SELECT 1 FROM ${this.connection.names.records} WHERE head = $1 LIMIT 1`,
        [idKey(info.id)],
      );
      if (rows.length > 0) throw refuse.liveHead();
      const ids = fresh.map((message) => message.id);
      const clash = await this.#segments.held(client, info.id, ids, length);
      const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
      if (clash.length > 0 || repeated !== undefined)
        throw refuse.twice(clash[0]?.id ?? (repeated as string));
      await this.#segments.write(client, info.id, fresh, length);
    });
  }

  async readSegmentIn(client: PoolClient, id: string, from: number, to: number): Promise<Message[]> {
    if (to <= from) return [];
    const { rows } = await client.query(
      `SELECT message FROM ${this.connection.names.messages}
       WHERE segment = $1 AND "offset" >= $2 AND "offset" < $3 ORDER BY "offset"`,
      [idKey(id), from, to],
    );
    return rows.map((row) => fromJsonb<Message>(row.message));
  }

  /** See `LogDriver.rewriteMessages` (rewrite-rows.ts). */
  rewriteMessages(segment: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]> {
    return rewriteMessageRows(this.connection, segment, rewrites);
  }

  /** See `LogDriver.rewriteRecord` (rewrite-rows.ts). */
  rewriteRecord(id: string, rewrite: RecordRewrite): Promise<boolean> {
    return rewriteRecordRows(this.connection, id, rewrite);
  }

  /** Checks that the server answers and the tables exist, so a store opened on a wrong URL fails at once. */
  async ping(): Promise<void> {
    await this.connection.query("SELECT 1", []);
  }

  /** Reclaims a segment nothing references (a streamed reply's batches once the reply landed), as a delete would. */
  async dropSegment(id: string): Promise<void> {
    // A reply's segment (no base, nothing references it) goes in one statement; anything else is checked.
    if (await this.#oneStatement.dropReplySegment(id)) return;
    await this.connection.transaction((client) => this.#segments.drop(client, id));
  }

  /** Wakes followers of a streamed reply in every process: LISTEN/NOTIFY (see `ReplyWakeups`). */
  watch(segment: string, listener: () => void): () => void {
    return this.#wakeups.watch(segment, listener);
  }

  notify(segment: string): Promise<void> {
    return this.#wakeups.notify(segment);
  }

  async close(): Promise<void> {
    await this.#wakeups.close();
    await this.connection.close();
  }
}

/** SQLSTATE unique_violation: an appended id is in the head segment already. */
const UNIQUE_VIOLATION = "23505";

/**
 * A plain append as one statement, so one round trip and one atomic change. The record's UPDATE locks its
 * row and writes only if it is a log at the caller's head and revision (`ifRevision`, when given); a
 * concurrent writer's change is waited for and the conditions checked again on it (READ COMMITTED). The
 * messages go in after the head's last; an id the head segment holds already breaks the (segment, id)
 * unique index, and the statement then changes nothing. No row: nothing written.
 */
function appendStatement(names: TableNames): string {
  // The offset of the first new message in the head segment: the record's length before, less the head
  // segment's start, which the record row keeps beside the head (schema 3), so the statement reads no
  // segment row. A NULL start would make the offset NULL, which the messages' NOT NULL refuses, so nothing
  // is half-written.
  return `WITH r AS (
      UPDATE ${names.records} SET revision = revision + 1, updated_at = $4,
        length = length + cardinality($5::bytea[]), log_end = COALESCE($8::text, log_end)
      WHERE key = $1 AND kind = 'log' AND head = $3 AND ($2::bigint IS NULL OR revision = $2::bigint)
      RETURNING revision, length, head_start
    ), m AS (
      INSERT INTO ${names.messages} (segment, "offset", id, system, message)
      SELECT $3, r.length - cardinality($5::bytea[]) - r.head_start + t.ord - 1, t.id, t.sys, t.body::jsonb
      FROM r, unnest($5::bytea[], $6::boolean[], $7::text[]) WITH ORDINALITY AS t(id, sys, body, ord)
    )
    SELECT revision, length FROM r`;
}

/**
 * `appendStatement` for one message, which is what most appends are: the message as plain parameters
 * ($5 id, $6 system, $7 JSON text) instead of three one-element arrays that the client escapes and the
 * server parses and unnests. The same checks, the same single atomic statement.
 */
function appendOneStatement(names: TableNames): string {
  return `WITH r AS (
      UPDATE ${names.records} SET revision = revision + 1, updated_at = $4, length = length + 1,
        log_end = COALESCE($8::text, log_end)
      WHERE key = $1 AND kind = 'log' AND head = $3 AND ($2::bigint IS NULL OR revision = $2::bigint)
      RETURNING revision, length, head_start
    ), m AS (
      INSERT INTO ${names.messages} (segment, "offset", id, system, message)
      SELECT $3, r.length - 1 - r.head_start, $5::bytea, $6::boolean, $7::jsonb FROM r
    )
    SELECT revision, length FROM r`;
}

function endOf(record: LogRecord, headStart: number) {
  return { segment: record.head, offset: record.length - headStart, position: record.length };
}

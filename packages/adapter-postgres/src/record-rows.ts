import type { HistoryEvent, JsonObject } from "@skein/thread-core";
import { catalogueEntry, catalogueOf, type LogRecord, type StateRecord } from "@skein/thread-core/driver";
import type { PoolClient } from "pg";
import { idFromKey, idKey } from "./id-keys.js";
import { fromJsonb, toJsonb } from "./jsonb-value.js";
import type { TableNames } from "./table-names.js";

/** A record row as read: a local thread's log head (`log`) or a saved state (`state`). */
export interface RecordRow {
  key: Buffer;
  id: string;
  kind: "log" | "state";
  type: string;
  revision: string;
  created_at: string | null;
  updated_at: string;
  metadata: unknown;
  metadata_text: string | null;
  context: unknown;
  context_text: string | null;
  state: unknown;
  state_text: string | null;
  operations: unknown;
  head: Buffer | null;
  length: string | null;
  /** The head segment's start (schema 3), which the append statement reads instead of the segment row. */
  head_start: string | null;
  /** `LogRecord.end` (schema 6). */
  log_end: string | null;
}

/** The records table inside a transaction. */
export class RecordRows {
  constructor(readonly names: TableNames) {}

  /** The row, locked until the transaction ends: every change to a thread takes this lock first. */
  async lock(client: PoolClient, id: string): Promise<RecordRow | undefined> {
    const { rows } = await client.query(`SELECT * FROM ${this.names.records} WHERE key = $1 FOR UPDATE`, [
      idKey(id),
    ]);
    return rows[0] as RecordRow | undefined;
  }

  /** Inserts a log record whose head segment starts at `headStart`; false if the id is taken. */
  async insertLog(client: PoolClient, record: LogRecord, headStart: number): Promise<boolean> {
    const { rowCount } = await client.query(
      `INSERT INTO ${this.names.records}
         (key, id, kind, type, revision, created_at, updated_at, metadata, context, head, length,
          metadata_text, context_text, operations, head_start, owner, expires_at, log_end)
       VALUES ($1, $2, 'log', $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, $17)
       ON CONFLICT (key) DO NOTHING`,
      [
        idKey(record.id),
        record.id,
        record.type,
        record.revision,
        record.createdAt,
        record.updatedAt,
        toJsonb(record.metadata),
        toJsonb(record.context),
        idKey(record.head),
        record.length,
        JSON.stringify(record.metadata),
        JSON.stringify(record.context),
        record.operations === undefined ? null : toJsonb(record.operations),
        headStart,
        catalogueOf(record.context).owner ?? null,
        catalogueOf(record.context).expiresAt ?? null,
        record.end ?? null,
      ],
    );
    return rowCount === 1;
  }

  async insertEvents(client: PoolClient, id: string, first: number, events: HistoryEvent[]): Promise<void> {
    if (events.length === 0) return;
    await client.query(
      `INSERT INTO ${this.names.events} (record, seq, event)
       SELECT $1, s, e::jsonb FROM unnest($2::integer[], $3::text[]) AS t(s, e)`,
      [idKey(id), events.map((_, index) => first + index), events.map((event) => toJsonb(event))],
    );
  }

  /** Writes a checked change; `headStart` is the start of `next.head` (kept beside it for the append statement). */
  async updateLog(
    client: PoolClient,
    next: LogRecord,
    headStart: number,
    metadata: boolean,
    context: boolean,
    operations: boolean,
    end = false,
  ): Promise<void> {
    const values: unknown[] = [
      idKey(next.id),
      next.revision,
      next.updatedAt,
      idKey(next.head),
      next.length,
      headStart,
    ];
    let set = "";
    for (const [changed, column, value] of [
      [metadata, "metadata", next.metadata],
      [context, "context", next.context],
    ] as const) {
      if (!changed) continue;
      values.push(toJsonb(value), JSON.stringify(value));
      set += `, ${column} = $${values.length - 1}::jsonb, ${column}_text = $${values.length}`;
    }
    if (context) {
      // The owner lives in the context (see schema 4): a context change is where it changes.
      // So does its own expiry (schema 5).
      const { owner, expiresAt } = catalogueOf(next.context);
      values.push(owner ?? null, expiresAt ?? null);
      set += `, owner = $${values.length - 1}, expires_at = $${values.length}`;
    }
    if (operations) {
      values.push(toJsonb(next.operations ?? null));
      set += `, operations = $${values.length}::jsonb`;
    }
    if (end) {
      values.push(next.end ?? null);
      set += `, log_end = $${values.length}`;
    }
    await client.query(
      `UPDATE ${this.names.records} SET revision = $2, updated_at = $3, head = $4, length = $5, head_start = $6${set} WHERE key = $1`,
      values,
    );
  }

  /**
   * Writes a state in one statement, checked inside it: the new revision, or undefined when the id holds a
   * log or `ifRevision` does not match (the caller reads the row to say which).
   */
  async putState(
    client: PoolClient,
    id: string,
    state: JsonObject,
    updatedAt: string,
    ifRevision: number | undefined,
  ): Promise<number | undefined> {
    // The state's owner and creation time, as store.list shows them, kept in columns for its indexes.
    const listed = catalogueEntry({ kind: "state", id, revision: 0, updatedAt, state });
    const values = [
      idKey(id),
      id,
      String(state.$type),
      updatedAt,
      toJsonb(state),
      JSON.stringify(state),
      listed.owner ?? null,
      listed.createdAt ?? null,
    ];
    const insert = `INSERT INTO ${this.names.records}
        (key, id, kind, type, revision, updated_at, state, state_text, owner, created_at)
      VALUES ($1, $2, 'state', $3, 1, $4, $5::jsonb, $6, $7, $8)`;
    let text: string;
    if (ifRevision === 0) text = `${insert} ON CONFLICT (key) DO NOTHING RETURNING revision`;
    else if (ifRevision === undefined) {
      text = `${insert} ON CONFLICT (key) DO UPDATE
        SET revision = ${this.names.records}.revision + 1, type = EXCLUDED.type,
            updated_at = EXCLUDED.updated_at, state = EXCLUDED.state, state_text = EXCLUDED.state_text,
            owner = EXCLUDED.owner, created_at = EXCLUDED.created_at
        WHERE ${this.names.records}.kind = 'state' RETURNING revision`;
    } else {
      text = `UPDATE ${this.names.records}
        SET revision = revision + 1, type = $3, updated_at = $4, state = $5::jsonb, state_text = $6,
            owner = $7, created_at = $8
        WHERE key = $1 AND $2::text IS NOT NULL AND kind = 'state' AND revision = $9 RETURNING revision`;
      values.push(String(ifRevision));
    }
    const { rows } = await client.query(text, values);
    return rows[0] ? Number(rows[0].revision) : undefined;
  }

  state(row: RecordRow): StateRecord {
    return {
      kind: "state",
      id: row.id,
      revision: Number(row.revision),
      updatedAt: row.updated_at,
      state:
        row.state_text === null
          ? fromJsonb<JsonObject>(row.state)
          : (JSON.parse(row.state_text) as JsonObject),
    };
  }

  log(row: RecordRow, events: HistoryEvent[]): LogRecord {
    return {
      kind: "log",
      id: row.id,
      type: row.type,
      createdAt: row.created_at as string,
      updatedAt: row.updated_at,
      revision: Number(row.revision),
      metadata: row.metadata_text === null ? fromJsonb(row.metadata) : JSON.parse(row.metadata_text),
      context: row.context_text === null ? fromJsonb(row.context) : JSON.parse(row.context_text),
      head: idFromKey(row.head as Buffer),
      length: Number(row.length),
      events,
      ...(row.operations === null ? {} : { operations: fromJsonb<LogRecord["operations"]>(row.operations) }),
      ...(row.log_end === null || row.log_end === undefined ? {} : { end: row.log_end }),
    };
  }
}

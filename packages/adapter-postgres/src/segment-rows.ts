import { ConflictError, type Message } from "@skein/thread-core";
import type { SegmentInfo } from "@skein/thread-core/driver";
import type { PoolClient } from "pg";
import { source } from "./errors.js";
import { idFromKey, idKey } from "./id-keys.js";
import { fromJsonb, toJsonb } from "./jsonb-value.js";
import type { TableNames } from "./table-names.js";

/** A segment row as read. */
export interface SegmentRow {
  key: Buffer;
  base: Buffer | null;
  base_offset: string | null;
  start: string;
  created_at: string;
  refs: number;
}

export function segmentInfo(row: SegmentRow): SegmentInfo {
  return {
    id: idFromKey(row.key),
    base: row.base === null ? null : { segment: idFromKey(row.base), offset: Number(row.base_offset) },
    start: Number(row.start),
    createdAt: row.created_at,
  };
}

/**
 * Segment rows inside a transaction: creation, reference counts and reclamation. A segment lives while a
 * record (its head or a history event) or a segment that continues it points at it; the last reference
 * dropped removes it and its messages, and releases its base in turn.
 */
export class SegmentRows {
  constructor(readonly names: TableNames) {}

  /** The segment row, locked for this transaction when `lock`. */
  async get(client: PoolClient, segmentId: string, lock = false): Promise<SegmentRow | undefined> {
    const { rows } = await client.query(
      `SELECT * FROM ${this.names.segments} WHERE key = $1${lock ? " FOR UPDATE" : ""}`,
      [idKey(segmentId)],
    );
    return rows[0] as SegmentRow | undefined;
  }

  /** Creates a segment with `refs` references; it takes one on its base. */
  async create(client: PoolClient, info: SegmentInfo, refs: number): Promise<void> {
    if (!(await this.createIfMissing(client, info, refs))) {
      throw new ConflictError(`Segment ${info.id} exists already.`, undefined, source);
    }
  }

  /**
   * Creates a segment unless it exists (another import made it first: that one holds the base's
   * reference); true if this call created it.
   */
  async createIfMissing(client: PoolClient, info: SegmentInfo, refs: number): Promise<boolean> {
    const { rowCount } = await client.query(
      `INSERT INTO ${this.names.segments} (key, base, base_offset, start, created_at, refs)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key) DO NOTHING`,
      [
        idKey(info.id),
        info.base ? idKey(info.base.segment) : null,
        info.base?.offset ?? null,
        info.start,
        info.createdAt,
        refs,
      ],
    );
    if (rowCount === 0) return false;
    if (info.base) await this.retain(client, [info.base.segment]);
    return true;
  }

  /** Takes a reference on each segment; false if one is missing (nothing is then taken: roll back). */
  async retain(client: PoolClient, segmentIds: string[]): Promise<boolean> {
    for (const segmentId of segmentIds) {
      const { rowCount } = await client.query(
        `UPDATE ${this.names.segments} SET refs = refs + 1 WHERE key = $1`,
        [idKey(segmentId)],
      );
      if (rowCount === 0) return false;
    }
    return true;
  }

  /**
   * Removes a segment that nothing references and no record has as its head (a streamed reply's batches,
   * once the reply landed), with its messages, and releases its base; a referenced segment is kept.
   */
  async drop(client: PoolClient, segmentId: string): Promise<void> {
    const row = await this.get(client, segmentId, true);
    if (!row || row.refs > 0) return;
    const { rows } = await client.query(`SELECT 1 FROM ${this.names.records} WHERE head = $1 LIMIT 1`, [
      row.key,
    ]);
    if (rows.length > 0) return;
    await client.query(`DELETE FROM ${this.names.messages} WHERE segment = $1`, [row.key]);
    await client.query(`DELETE FROM ${this.names.segments} WHERE key = $1`, [row.key]);
    if (row.base) await this.release(client, [idFromKey(row.base)]);
  }

  /** Drops a reference on each segment, reclaiming those left with none, and their bases in turn. */
  async release(client: PoolClient, segmentIds: string[]): Promise<void> {
    const pending = [...segmentIds];
    while (pending.length > 0) {
      const key = idKey(pending.pop() as string);
      const { rows } = await client.query(
        `UPDATE ${this.names.segments} SET refs = refs - 1 WHERE key = $1 RETURNING refs, base`,
        [key],
      );
      const row = rows[0] as { refs: number; base: Buffer | null } | undefined;
      if (!row || row.refs > 0) continue;
      await client.query(`DELETE FROM ${this.names.messages} WHERE segment = $1`, [key]);
      await client.query(`DELETE FROM ${this.names.segments} WHERE key = $1`, [key]);
      if (row.base) pending.push(idFromKey(row.base));
    }
  }

  /**
   * How many messages the segment holds: its last offset + 1, read backwards on the primary key. Kept
   * nowhere else, so that an append writes no segment row.
   */
  async length(client: PoolClient, segmentId: string): Promise<number> {
    const { rows } = await client.query(
      `SELECT "offset" FROM ${this.names.messages} WHERE segment = $1 ORDER BY "offset" DESC LIMIT 1`,
      [idKey(segmentId)],
    );
    return rows[0] ? Number(rows[0].offset) + 1 : 0;
  }

  /** Writes messages at own offsets `from…` of a segment. */
  async write(client: PoolClient, segmentId: string, messages: Message[], from: number): Promise<void> {
    if (messages.length === 0) return;
    const key = idKey(segmentId);
    // One statement for the batch: arrays unnested row by row.
    await client.query(
      `INSERT INTO ${this.names.messages} (segment, "offset", id, system, message)
       SELECT $1, o, i, s, m::jsonb FROM unnest($2::bigint[], $3::bytea[], $4::boolean[], $5::text[]) AS t(o, i, s, m)`,
      [
        key,
        messages.map((_, index) => from + index),
        messages.map((message) => idKey(message.id)),
        messages.map((message) => message.role === "system"),
        messages.map((message) => toJsonb(message)),
      ],
    );
  }

  /** The messages of a segment under these ids, below `before`, as stored. */
  async held(client: PoolClient, segmentId: string, ids: string[], before: number): Promise<Message[]> {
    if (ids.length === 0) return [];
    const { rows } = await client.query(
      `SELECT message FROM ${this.names.messages} WHERE segment = $1 AND id = ANY($2::bytea[]) AND "offset" < $3`,
      [idKey(segmentId), ids.map(idKey), before],
    );
    return rows.map((row) => fromJsonb<Message>(row.message));
  }
}

import type { MessageRewrite, RecordRewrite } from "@skein/thread-core/driver";
import { idKey } from "./id-keys.js";
import { toJsonb } from "./jsonb-value.js";
import type { PostgresConnection } from "./postgres-connection.js";

/**
 * `LogDriver.rewriteMessages`: one statement, each row compared with what was read (as `jsonb`, which is how
 * it was read) and replaced inside it; rows that are gone or differ are left alone.
 */
export async function rewriteMessageRows(
  connection: PostgresConnection,
  segment: string,
  rewrites: readonly MessageRewrite[],
): Promise<boolean[]> {
  if (rewrites.length === 0) return [];
  const rows = await connection.query<{ offset: string }>(
    `UPDATE ${connection.names.messages} AS m SET message = r.replacement::jsonb
     FROM unnest($2::bigint[], $3::text[], $4::text[]) AS r(at, expected, replacement)
     WHERE m.segment = $1 AND m."offset" = r.at AND m.message = r.expected::jsonb
     RETURNING m."offset"`,
    [
      idKey(segment),
      rewrites.map((rewrite) => rewrite.offset),
      rewrites.map((rewrite) => toJsonb(rewrite.expected)),
      rewrites.map((rewrite) => toJsonb(rewrite.replacement)),
    ],
  );
  const done = new Set(rows.map((row) => Number(row.offset)));
  return rewrites.map((rewrite) => done.has(rewrite.offset));
}

/**
 * `LogDriver.rewriteRecord`: in one transaction, the record's row and the events named are locked and
 * compared with what was read; all are replaced, or none. Revision and `updated_at` are left as they are, and
 * so is a field the rewrite leaves out (neither compared nor set).
 */
export function rewriteRecordRows(
  connection: PostgresConnection,
  id: string,
  rewrite: RecordRewrite,
): Promise<boolean> {
  const { names } = connection;
  const key = idKey(id);
  return connection.transaction(async (client) => {
    const fields = (["metadata", "context"] as const).flatMap((column) => {
      const field = rewrite[column];
      return field ? [{ column, ...field }] : [];
    });
    const record = await client.query(
      `SELECT log_end FROM ${names.records} WHERE key = $1 AND kind = 'log'${fields
        .map(({ column }, index) => ` AND ${column} = $${index + 2}::jsonb`)
        .join("")} FOR UPDATE`,
      [key, ...fields.map((field) => toJsonb(field.expected))],
    );
    if (record.rows.length === 0) return false;
    const { end } = rewrite;
    if (end && (record.rows[0].log_end ?? undefined) !== end.expected) return false;
    if (rewrite.events.length > 0) {
      const events = await client.query(
        `SELECT e.seq FROM ${names.events} AS e
         JOIN unnest($2::integer[], $3::text[]) AS r(seq, expected) ON e.seq = r.seq AND e.event = r.expected::jsonb
         WHERE e.record = $1 FOR UPDATE OF e`,
        [
          key,
          rewrite.events.map((event) => event.index),
          rewrite.events.map((event) => toJsonb(event.expected)),
        ],
      );
      if (events.rows.length !== rewrite.events.length) return false;
      await client.query(
        `UPDATE ${names.events} AS e SET event = r.replacement::jsonb
         FROM unnest($2::integer[], $3::text[]) AS r(seq, replacement)
         WHERE e.record = $1 AND e.seq = r.seq`,
        [
          key,
          rewrite.events.map((event) => event.index),
          rewrite.events.map((event) => toJsonb(event.replacement)),
        ],
      );
    }
    if (end) {
      await client.query(`UPDATE ${names.records} SET log_end = $2 WHERE key = $1`, [key, end.replacement]);
    }
    if (fields.length === 0) return true;
    await client.query(
      `UPDATE ${names.records} SET ${fields
        .map(
          ({ column }, index) => `${column} = $${2 * index + 2}::jsonb, ${column}_text = $${2 * index + 3}`,
        )
        .join(", ")} WHERE key = $1`,
      [key, ...fields.flatMap((field) => [toJsonb(field.replacement), JSON.stringify(field.replacement)])],
    );
    return true;
  });
}

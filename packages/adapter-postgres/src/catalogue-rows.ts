import type { CatalogueQuery, CountQuery, ExpiryQuery, StoredRecord } from "@skein/thread-core/driver";
import { idKey, prefixEnd } from "./id-keys.js";
import type { RecordRow, RecordRows } from "./record-rows.js";
import { LISTED_METADATA } from "./schema.js";

/** What the catalogue queries run SQL with: the connection's query and the records table's reader. */
export interface CatalogueConnection {
  query<Row>(text: string, values?: unknown[]): Promise<Row[]>;
  readonly records: RecordRows;
  readonly table: string;
}

/** The column each order sorts by, as the indexes of schema 4 spell it (byte order, as thread-core compares). */
function sortColumn(order: CatalogueQuery["order"]): string | undefined {
  if (order === "updated") return `updated_at COLLATE "C"`;
  if (order === "created") return `(COALESCE(created_at, '')) COLLATE "C"`;
  return undefined;
}

/** The WHERE conditions of a scope, owner and metadata filter, their values appended to `values`. */
function filters(query: CountQuery & Pick<CatalogueQuery, "prefix">, values: unknown[]): string[] {
  values.push(query.scope);
  const conditions = [`scope = $${values.length}`];
  if (query.owner !== undefined) {
    values.push(query.owner);
    conditions.push(`owner = $${values.length}`);
  }
  if (query.where !== undefined && Object.keys(query.where).length > 0) {
    // Containment finds candidates through the GIN index; equality of each key's value makes it exact
    // (containment alone would take { tags: { a: 1, b: 2 } } for { tags: { a: 1 } }).
    values.push(JSON.stringify(query.where));
    conditions.push(`(${LISTED_METADATA}) @> $${values.length}::jsonb`);
    for (const [key, value] of Object.entries(query.where)) {
      values.push(key, JSON.stringify(value));
      conditions.push(`(${LISTED_METADATA}) -> $${values.length - 1}::text = $${values.length}::jsonb`);
    }
  }
  if (query.prefix !== undefined) {
    values.push(idKey(query.scope + query.prefix));
    conditions.push(`key >= $${values.length}`);
    const end = prefixEnd(query.scope + query.prefix);
    if (end) {
      values.push(end);
      conditions.push(`key < $${values.length}`);
    }
  }
  return conditions;
}

/** One page of `store.list`, read through the schema 4 indexes: O(page) for one owner's newest. */
export async function cataloguePage(
  connection: CatalogueConnection,
  query: CatalogueQuery,
): Promise<StoredRecord[]> {
  const values: unknown[] = [];
  const conditions = filters(query, values);
  const sort = sortColumn(query.order);
  const direction = query.direction === "asc" ? "ASC" : "DESC";
  if (query.after) {
    const operator = query.direction === "asc" ? ">" : "<";
    values.push(idKey(query.after.id));
    if (sort) {
      values.push(query.after.key);
      conditions.push(`(${sort}, key) ${operator} ($${values.length}, $${values.length - 1})`);
    } else conditions.push(`key ${operator} $${values.length}`);
  }
  if (query.until !== undefined && sort) {
    values.push(query.until);
    conditions.push(`${sort} <= $${values.length}`);
  }
  values.push(query.limit);
  const rows = await connection.query<RecordRow>(
    `SELECT * FROM ${connection.table} WHERE ${conditions.join(" AND ")}
     ORDER BY ${sort ? `${sort} ${direction}, ` : ""}key ${direction} LIMIT $${values.length}`,
    values,
  );
  // Listing needs no history: a log's events are left out (thread-core reads none of them here).
  return rows.map((row) =>
    row.kind === "state" ? connection.records.state(row) : connection.records.log(row, []),
  );
}

/** A sweep's page of expired local threads (`LogDriver.expiring`), by schema 5's index: O(page). */
export async function expiringPage(
  connection: CatalogueConnection,
  query: ExpiryQuery,
): Promise<StoredRecord[]> {
  const values: unknown[] = [query.scope, query.until];
  const conditions = ["scope = $1", "expires_at IS NOT NULL", `expires_at COLLATE "C" <= $2`];
  if (query.after) {
    values.push(query.after.key, idKey(query.after.id));
    conditions.push(`(expires_at COLLATE "C", key) > ($${values.length - 1}, $${values.length})`);
  }
  values.push(query.limit);
  const rows = await connection.query<RecordRow>(
    `SELECT * FROM ${connection.table} WHERE ${conditions.join(" AND ")}
     ORDER BY expires_at COLLATE "C", key LIMIT $${values.length}`,
    values,
  );
  return rows.map((row) => connection.records.log(row, []));
}

/** `store.count`, by the same indexes. */
export async function catalogueCount(connection: CatalogueConnection, query: CountQuery): Promise<number> {
  const values: unknown[] = [];
  const conditions = filters(query, values);
  const rows = await connection.query<{ count: string }>(
    `SELECT count(*) AS count FROM ${connection.table} WHERE ${conditions.join(" AND ")}`,
    values,
  );
  return Number(rows[0]?.count ?? 0);
}

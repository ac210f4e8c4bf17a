import type { PoolClient } from "pg";
import { UnsupportedSchemaVersionError } from "./errors.js";
import type { TableNames } from "./table-names.js";

/**
 * The tables, version by version: each migration brings version n - 1 to n, and `ensureSchema` records the
 * version reached in the meta table. Ids are `bytea` (see id-keys.ts); messages, states, metadata,
 * context and events are `jsonb`. A saved state, metadata and context also keep their JSON
 * text (`*_text`, what reads use): `jsonb` orders keys its own way, and a state of a type this process does
 * not know, wherever it is nested, must read back byte-equal (SPEC §3).
 */
const MIGRATIONS: Array<(names: TableNames) => string> = [
  (names) => `
    CREATE TABLE ${names.records} (
      key bytea PRIMARY KEY,
      id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('log', 'state')),
      type text NOT NULL,
      revision bigint NOT NULL,
      created_at text,
      updated_at text NOT NULL,
      metadata jsonb,
      metadata_text text,
      context jsonb,
      context_text text,
      state jsonb,
      state_text text,
      head bytea,
      length bigint
    );
    CREATE INDEX ON ${names.records} (head) WHERE head IS NOT NULL;
    CREATE TABLE ${names.events} (
      record bytea NOT NULL,
      seq integer NOT NULL,
      event jsonb NOT NULL,
      PRIMARY KEY (record, seq)
    );
    CREATE TABLE ${names.segments} (
      key bytea PRIMARY KEY,
      base bytea,
      base_offset bigint,
      start bigint NOT NULL,
      created_at text NOT NULL,
      length bigint NOT NULL DEFAULT 0,
      refs integer NOT NULL DEFAULT 0
    );
    CREATE TABLE ${names.messages} (
      segment bytea NOT NULL,
      "offset" bigint NOT NULL,
      id bytea NOT NULL,
      system boolean NOT NULL,
      message jsonb NOT NULL,
      PRIMARY KEY (segment, "offset")
    );
    CREATE UNIQUE INDEX ON ${names.messages} (segment, id);
    CREATE INDEX ON ${names.messages} (segment, "offset") WHERE system;
  `,
];

/** The newest version this package writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Creates the tables, or migrates them to `SCHEMA_VERSION`, in one transaction under an advisory lock, so
 * that many processes opening a new store at once create it once. Tables of a newer version are refused.
 */
export async function ensureSchema(client: PoolClient, names: TableNames): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`skein.migrate.${names.prefix}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${names.schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${names.meta} (name text PRIMARY KEY, value text NOT NULL)`,
    );
    const { rows } = await client.query(`SELECT value FROM ${names.meta} WHERE name = 'schema_version'`);
    const found = rows.length === 0 ? 0 : Number(rows[0].value);
    if (found > SCHEMA_VERSION) throw new UnsupportedSchemaVersionError(found, SCHEMA_VERSION);
    for (let version = found + 1; version <= SCHEMA_VERSION; version++) {
      await client.query((MIGRATIONS[version - 1] as (names: TableNames) => string)(names));
    }
    if (found < SCHEMA_VERSION) {
      await client.query(
        `INSERT INTO ${names.meta} (name, value) VALUES ('schema_version', $1)
         ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`,
        [String(SCHEMA_VERSION)],
      );
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

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
      operations jsonb,
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
    -- A plain append in one statement (one round trip), with every check of LogChange inside it: locks the
    -- record; answers notfound, concurrency (with the revision), headmoved, or held (the stored messages under
    -- appended ids, nothing written); else writes the messages after the head's last and bumps the revision.
    CREATE FUNCTION ${names.append}(
      p_key bytea, p_if_revision bigint, p_head bytea, p_updated_at text,
      p_ids bytea[], p_system boolean[], p_messages text[]
    ) RETURNS TABLE (outcome text, revision bigint, length bigint, held jsonb[])
    LANGUAGE plpgsql AS $fn$
    DECLARE
      r record;
      head_start bigint;
      head_offset bigint;
      found_held jsonb[];
      n integer := cardinality(p_ids);
    BEGIN
      SELECT t.kind, t.revision, t.head, t.length INTO r FROM ${names.records} t WHERE t.key = p_key FOR UPDATE;
      IF NOT FOUND OR r.kind <> 'log' THEN
        RETURN QUERY SELECT 'notfound'::text, NULL::bigint, NULL::bigint, NULL::jsonb[]; RETURN;
      END IF;
      IF p_if_revision IS NOT NULL AND p_if_revision <> r.revision THEN
        RETURN QUERY SELECT 'concurrency'::text, r.revision, r.length, NULL::jsonb[]; RETURN;
      END IF;
      IF r.head <> p_head THEN
        RETURN QUERY SELECT 'headmoved'::text, r.revision, r.length, NULL::jsonb[]; RETURN;
      END IF;
      SELECT s.start INTO head_start FROM ${names.segments} s WHERE s.key = r.head;
      head_offset := r.length - head_start;
      -- One unique-index probe per appended id (a join, so that no plan scans the messages).
      SELECT array_agg(m.message) INTO found_held FROM unnest(p_ids) AS q(id)
        JOIN ${names.messages} m ON m.segment = r.head AND m.id = q.id
        WHERE m."offset" < head_offset;
      IF found_held IS NOT NULL THEN
        RETURN QUERY SELECT 'held'::text, r.revision, r.length, found_held; RETURN;
      END IF;
      INSERT INTO ${names.messages} (segment, "offset", id, system, message)
        SELECT r.head, head_offset + t.ord - 1, t.i, t.s, t.m::jsonb
        FROM unnest(p_ids, p_system, p_messages) WITH ORDINALITY AS t(i, s, m, ord);
      UPDATE ${names.segments} SET length = head_offset + n WHERE key = r.head;
      UPDATE ${names.records} SET revision = r.revision + 1, updated_at = p_updated_at, length = r.length + n
        WHERE key = p_key;
      RETURN QUERY SELECT 'ok'::text, r.revision + 1, r.length + n, NULL::jsonb[];
    END
    $fn$;
  `,
  // 2: a plain append is one statement of the driver (postgres-log-driver.ts), no function: version 1's
  // function read the head segment's messages to check the ids (its join let the planner, without
  // statistics, hash every one of them: a cost growing with the thread) and paid PL/pgSQL's statements; the
  // statement leaves that check to the (segment, id) unique index. A segment's length is its last
  // message's offset + 1 (read on the primary key), so that an append writes no segment row.
  (names) => `
    DROP FUNCTION ${names.append}(bytea, bigint, bytea, text, bytea[], boolean[], text[]);
    ALTER TABLE ${names.segments} DROP COLUMN length;
  `,
  // 3: the record keeps its head segment's start (`head_start`, set wherever `head` is), so the append
  // statement computes a message's offset from the row it updates and reads no segment row.
  (names) => `
    ALTER TABLE ${names.records} ADD COLUMN head_start bigint;
    UPDATE ${names.records} r SET head_start = s.start FROM ${names.segments} s WHERE s.key = r.head;
  `,
  // 4: the catalogue (store.list by owner, order and metadata). \`owner\` is written with the record (a local
  // thread's from its context's "$catalogue", a state's from its top-level "owner"), \`scope\` is the id's
  // scope prefix (up to its last U+001F), and a state's \`created_at\` is its "createdAt". Each order has an
  // index per owner and per scope, so a page of one owner's newest threads reads that page; \`where\` is served
  // by a GIN index on the metadata. Existing rows are filled in here.
  (names) => `
    ALTER TABLE ${names.records} ADD COLUMN owner text,
      ADD COLUMN scope text GENERATED ALWAYS AS (COALESCE(substring(id from E'^(.*\\037)'), '')) STORED;
    UPDATE ${names.records} SET owner = context -> '$catalogue' ->> 'owner'
      WHERE kind = 'log' AND jsonb_typeof(context -> '$catalogue' -> 'owner') = 'string';
    UPDATE ${names.records} SET owner = state ->> 'owner'
      WHERE kind = 'state' AND jsonb_typeof(state -> 'owner') = 'string';
    UPDATE ${names.records} SET created_at = state ->> 'createdAt'
      WHERE kind = 'state' AND jsonb_typeof(state -> 'createdAt') = 'string';
    CREATE INDEX ON ${names.records} (scope, owner, updated_at COLLATE "C", key);
    CREATE INDEX ON ${names.records} (scope, owner, (COALESCE(created_at, '')) COLLATE "C", key);
    CREATE INDEX ON ${names.records} (scope, owner, key);
    CREATE INDEX ON ${names.records} (scope, updated_at COLLATE "C", key);
    CREATE INDEX ON ${names.records} (scope, (COALESCE(created_at, '')) COLLATE "C", key);
    CREATE INDEX ON ${names.records} (scope, key);
    CREATE INDEX ON ${names.records} USING gin ((${LISTED_METADATA}) jsonb_path_ops);
  `,
  // 5: retention. \`expires_at\` is a local thread's own expiry, written with the record from its context's
  // "$catalogue" (as \`owner\` is), and indexed per scope where set, so a sweep reads the expired rows only.
  (names) => `
    ALTER TABLE ${names.records} ADD COLUMN expires_at text;
    UPDATE ${names.records} SET expires_at = context -> '$catalogue' ->> 'expiresAt'
      WHERE kind = 'log' AND jsonb_typeof(context -> '$catalogue' -> 'expiresAt') = 'string';
    CREATE INDEX ON ${names.records} (scope, expires_at COLLATE "C", key) WHERE expires_at IS NOT NULL;
  `,
  // 6: \`log_end\` is a local thread's \`LogRecord.end\` (what an encrypting store authenticates the log's end
  // with), opaque text written with \`length\` by every statement that changes it; NULL where never given.
  (names) => `
    ALTER TABLE ${names.records} ADD COLUMN log_end text;
  `,
];

/** The metadata \`where\` compares: a local thread's, or a saved state's own \`metadata\` field. */
export const LISTED_METADATA = "CASE WHEN kind = 'log' THEN metadata ELSE state -> 'metadata' END";

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

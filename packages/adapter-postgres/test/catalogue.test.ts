import { databaseUrl } from "@skein/test-support/test-postgres";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore, SCHEMA_VERSION } from "../src/index.js";
import { sql, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
const schema = schemas.schema;
afterAll(() => schemas.dropAll());

describe("postgres catalogue (store.list by owner, order and metadata)", () => {
  it("migrates version 3 tables: existing threads are listed by owner, scope and creation", async () => {
    const name = schema("v3");
    const store = postgresStore({ url: databaseUrl(), schema: name });
    await store.create({ id: "mine", owner: "u-7", title: "Mine" });
    await store.create({ id: "theirs", owner: "u-8" });
    await store.scope("tenant").create({ id: "scoped", owner: "u-7" });
    await store.close();
    // What version 3 left: no owner or scope columns (nor version 5's expires_at, 6's log_end), none of their indexes.
    const gin = await sql<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%gin%'",
      [name],
    );
    for (const index of gin) await sql(`DROP INDEX "${name}"."${index.indexname}"`);
    await sql(
      `ALTER TABLE "${name}"."skein_records" DROP COLUMN owner, DROP COLUMN scope, DROP COLUMN expires_at, DROP COLUMN log_end`,
    );
    await sql(`UPDATE "${name}"."skein_meta" SET value = '3' WHERE name = 'schema_version'`);

    const migrated = postgresStore({ url: databaseUrl(), schema: name });
    const page = await migrated.list({ owner: "u-7", order: "updated" });
    expect(page.items.map((item) => [item.id, item.title])).toEqual([["mine", "Mine"]]);
    expect((await migrated.scope("tenant").list({ owner: "u-7" })).items.map((item) => item.id)).toEqual([
      "scoped",
    ]);
    expect(await migrated.count({ owner: "u-8" })).toBe(1);
    const version = await sql<{ value: string }>(
      `SELECT value FROM "${name}"."skein_meta" WHERE name = 'schema_version'`,
    );
    expect(version).toEqual([{ value: String(SCHEMA_VERSION) }]);
    await migrated.close();
  });

  it("a page of one owner's newest threads and a where filter are read through indexes, never a scan", async () => {
    const name = schema("catalogue_plans");
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 2 });
    const statements: Array<{ text: string; values: unknown[] }> = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        if (typeof args[0] === "string")
          statements.push({ text: args[0], values: (args[1] as unknown[]) ?? [] });
        return query(...args);
      };
    });
    const store = postgresStore({ pool, schema: name });
    await store.list({ limit: 1 }); // creates the tables
    await sql(
      `INSERT INTO "${name}".skein_records (key, id, kind, type, revision, created_at, updated_at, metadata, metadata_text, context, context_text, owner, head, length, head_start)
       SELECT decode(regexp_replace(encode(convert_to('t' || n, 'UTF8'), 'hex'), '(..)', '00\\1', 'g'), 'hex'), 't' || n, 'log', 'postgres', 0, to_char(n, 'FM0000000'), to_char(n, 'FM0000000'),
              jsonb_build_object('agent', 'a' || (n % 50)), NULL, '{}'::jsonb, NULL, 'owner-' || (n % 100), '\\x00730065'::bytea, 0, 0
       FROM generate_series(1, 20000) AS n`,
    );
    // 20,000 threads of 100 owners, written straight into the table (ASCII ids as UTF-16BE keys, see id-keys.ts).
    await sql(`ANALYZE "${name}".skein_records`);
    for (const options of [
      { owner: "owner-7", order: "updated" as const, limit: 20 },
      { owner: "owner-7", order: "created" as const, limit: 20 },
      { where: { agent: "a3" }, order: "id" as const, limit: 20 },
    ]) {
      statements.length = 0;
      const page = await store.list(options);
      expect(page.items).toHaveLength(20);
      const listing = statements.find((statement) =>
        /FROM .*skein_records.* WHERE scope = /s.test(statement.text),
      );
      expect(listing).toBeDefined();
      const plan = (await sql<{ "QUERY PLAN": string }>(`EXPLAIN ${listing?.text}`, listing?.values))
        .map((row) => row["QUERY PLAN"])
        .join("\n");
      expect(plan, plan).toMatch(/Index/);
      expect(plan, plan).not.toMatch(/Seq Scan/);
    }
    await store.close();
    await pool.end();
  });
});

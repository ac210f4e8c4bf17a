import { databaseUrl } from "@skein/test-support/test-postgres";
import {
  ConcurrencyError,
  type Message,
  openStore,
  SkeinError,
  StoreUnavailableError,
  ThreadExistsError,
} from "@skein/thread-core";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  postgresAdapter,
  postgresStore,
  SCHEMA_VERSION,
  UnsupportedSchemaVersionError,
} from "../src/index.js";
import { sql, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
const schema = schemas.schema;
afterAll(() => schemas.dropAll());

describe("postgres store", () => {
  it("creates its tables on first open, records the schema version, and refuses tables of a newer one", async () => {
    const name = schema("version");
    const store = postgresStore({ url: databaseUrl(), schema: name, tablePrefix: "agents_" });
    await store.create({ id: "t" });
    const rows = await sql<{ value: string }>(
      `SELECT value FROM "${name}"."agents_meta" WHERE name = 'schema_version'`,
    );
    expect(rows).toEqual([{ value: String(SCHEMA_VERSION) }]);
    await store.close();

    await sql(
      `UPDATE "${name}"."agents_meta" SET value = '${SCHEMA_VERSION + 1}' WHERE name = 'schema_version'`,
    );
    const newer = postgresStore({ url: databaseUrl(), schema: name, tablePrefix: "agents_" });
    const error = await newer.get("t").catch((caught: unknown) => caught as Error);
    expect(UnsupportedSchemaVersionError.isInstance(error)).toBe(true);
    await newer.close();
  });

  it("migrates version 2 tables: the records get their head segment's start, and appends land after the last message", async () => {
    const name = schema("v2");
    const store = postgresStore({ url: databaseUrl(), schema: name });
    const thread = await store.create({ id: "old" });
    await thread.append([
      { role: "user", text: "one" },
      { role: "assistant", text: "two" },
    ]);
    // A thread whose head is a rollback's segment, which starts after the first message.
    const rolled = await store.create({ id: "rolled" });
    await rolled.append({ role: "user", text: "a" });
    const point = await rolled.checkpoint();
    await rolled.append({ role: "user", text: "b" });
    await rolled.rollback(point);
    await store.close();
    // What version 2 left: no head_start column, nor version 4's owner and scope (and their indexes).
    await sql(
      `ALTER TABLE "${name}"."skein_records" DROP COLUMN head_start, DROP COLUMN owner, DROP COLUMN scope, DROP COLUMN expires_at, DROP COLUMN log_end`,
    );
    for (const index of await sql<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%gin%'",
      [name],
    )) {
      await sql(`DROP INDEX "${name}"."${index.indexname}"`);
    }
    await sql(`UPDATE "${name}"."skein_meta" SET value = '2' WHERE name = 'schema_version'`);
    const migrated = postgresStore({ url: databaseUrl(), schema: name });
    const old = await migrated.get("old");
    await old.append({ role: "user", text: "three" });
    const texts = (messages: Message[]) =>
      messages.map((message) => (message.contents[0] as { text: string }).text);
    expect(texts(await old.messages())).toEqual(["one", "two", "three"]);
    const again = await migrated.get("rolled");
    await again.append({ role: "user", text: "c" });
    expect(texts(await again.messages())).toEqual(["a", "c"]);
    const rows = await sql<{ value: string }>(
      `SELECT value FROM "${name}"."skein_meta" WHERE name = 'schema_version'`,
    );
    expect(rows).toEqual([{ value: String(SCHEMA_VERSION) }]);
    await migrated.close();
  });

  it("opens postgres:// and postgresql:// URLs with schema and tablePrefix from the query, never showing the password", async () => {
    const name = schema("url");
    const url = new URL(databaseUrl());
    url.password = "s3cret-pw";
    url.searchParams.set("schema", name);
    url.searchParams.set("tablePrefix", "x_");
    const store = await openStore(url.href);
    expect(store.nativeType).toBe("postgres");
    expect(store.url).not.toContain("s3cret-pw");
    await (await store.create({ id: "via-url" })).append({ role: "user", text: "hi" });
    await store.close();
    url.protocol = "postgresql:";
    const again = await openStore(url.href, { adapters: [postgresAdapter()] });
    expect(await (await again.get("via-url")).messages()).toHaveLength(1);
    await again.close();
    expect(await sql(`SELECT 1 FROM "${name}"."x_records"`)).toHaveLength(1);
  });

  it("uses a Pool passed in and leaves it open on close", async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 2 });
    const store = postgresStore({ pool, schema: schema("pool") });
    expect(store.url).toBe("postgres://(pool)");
    const thread = await store.create();
    await thread.append({ role: "user", text: "a" });
    await expect(thread.append({ role: "user", text: "b" }, { ifRevision: 0 })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await store.close();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it("reads the last messages and lists threads through indexes, never a scan", async () => {
    const name = schema("plans");
    const store = postgresStore({ url: databaseUrl(), schema: name });
    const thread = await store.create({ id: "long" });
    for (let batch = 0; batch < 20; batch++) {
      await thread.append(
        Array.from({ length: 100 }, (_, index) => ({ role: "user" as const, text: `${batch}-${index}` })),
      );
    }
    expect((await thread.messages({ last: 3 })).map((message) => message.contents[0])).toEqual(
      [97, 98, 99].map((index) => ({ type: "text", text: `19-${index}` })),
    );
    const head = (await sql<{ head: Buffer }>(`SELECT head FROM "${name}".skein_records`))[0]?.head as Buffer;
    await sql(`ANALYZE "${name}".skein_messages`);
    const plan = (
      await sql<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT message FROM "${name}".skein_messages WHERE segment = $1 AND "offset" >= 1997 AND "offset" < 2000 ORDER BY "offset"`,
        [head],
      )
    )
      .map((row) => row["QUERY PLAN"])
      .join("\n");
    expect(plan).toMatch(/Index/);
    expect(plan).not.toMatch(/Seq Scan/);
    await store.close();
  });

  it("an append checks its ids by the id index: it reads no message row of the thread but the ones it asks for", async () => {
    const name = schema("append_plan");
    // One connection, so that the statements auto_explain reports are the append's own.
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    const store = postgresStore({ pool, schema: name });
    const thread = await store.create({ id: "long" });
    for (let index = 0; index < 300; index++) await thread.append({ role: "user", text: `m${index}` });
    const plans: string[] = [];
    const client = await pool.connect();
    client.on("notice", (notice) => plans.push(notice.message ?? ""));
    await client.query("LOAD 'auto_explain'");
    for (const setting of [
      "log_min_duration = 0",
      "log_nested_statements = on",
      "log_analyze = on",
      "log_level = notice",
    ]) {
      await client.query(`SET auto_explain.${setting}`);
    }
    client.release();
    await thread.append({ role: "user", text: "one more" });
    await thread.append({ role: "user", text: "and another" });
    const report = plans.join("\n");
    expect(report).toMatch(/skein_messages/);
    // Every plan node's row count (actual … rows=N): a check that scans the thread reads its 300 messages.
    const rows = [...report.matchAll(/actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/g)].map((match) =>
      Number(match[1]),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(Math.max(...rows)).toBeLessThanOrEqual(1);
    expect((await thread.messages()).length).toBe(302);
    await store.close();
    await pool.end();
  });
  it("a one-message append sends its message as plain parameters: nothing to unnest; a batch still lands whole", async () => {
    const name = schema("append_one");
    // One connection, so that the statements auto_explain reports are the appends' own.
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    const store = postgresStore({ pool, schema: name });
    const thread = await store.create({ id: "one" });
    await thread.append({ role: "user", text: "before" });
    const plans: string[] = [];
    const client = await pool.connect();
    client.on("notice", (notice) => plans.push(notice.message ?? ""));
    await client.query("LOAD 'auto_explain'");
    for (const setting of ["log_min_duration = 0", "log_analyze = on", "log_level = notice"]) {
      await client.query(`SET auto_explain.${setting}`);
    }
    client.release();
    await thread.append({ role: "system", text: "one" });
    const one = plans.join("\n");
    expect(one).toMatch(/Insert on skein_messages/);
    expect(one).not.toMatch(/Function Scan/);
    plans.length = 0;
    await thread.append([
      { role: "user", text: "two" },
      { role: "assistant", text: "three" },
    ]);
    expect(plans.join("\n")).toMatch(/Function Scan/);
    const messages = await thread.messages();
    expect(messages.map((message) => message.role)).toEqual(["user", "system", "user", "assistant"]);
    expect(await thread.messages({ last: 1 })).toEqual([messages[3]]);
    await store.close();
    await pool.end();
  });
  it("an append runs its statement by name, parsed once per connection; a refusal or a lost connection is skein's error and writes nothing", async () => {
    const name = schema("append_named");
    // One connection, so that its prepared statements are all the appends'.
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    pool.on("error", () => undefined);
    let connections = 0;
    pool.on("connect", () => connections++);
    const store = postgresStore({ pool, schema: name });
    const thread = await store.create({ id: "named" });
    for (let index = 0; index < 5; index++) await thread.append({ role: "user", text: `m${index}` });
    const client = await pool.connect();
    const { rows } = await client.query<{ name: string; runs: string }>(
      `SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements
       WHERE statement LIKE '%INSERT INTO "${name}"."skein_messages"%'`,
    );
    client.release();
    // Parsed once, then run by name for each of the five appends.
    expect(rows).toHaveLength(1);
    expect(rows[0]?.name).toMatch(/^skein_[0-9a-f]{32}$/);
    expect(Number(rows[0]?.runs)).toBe(5);

    // A server refusal (here a CHECK constraint) is a SkeinError that names the SQLSTATE; nothing is written.
    await sql(
      `ALTER TABLE "${name}"."skein_messages" ADD CONSTRAINT no_refused CHECK (message->'contents'->0->>'text' <> 'refused') NOT VALID`,
    );
    const refused = await thread.append({ role: "user", text: "refused" }).catch((error: unknown) => error);
    expect(SkeinError.isInstance(refused)).toBe(true);
    expect(StoreUnavailableError.isInstance(refused)).toBe(false);
    expect((refused as Error).message).toMatch(/refused a statement \(23514\)/);
    await sql(`ALTER TABLE "${name}"."skein_messages" DROP CONSTRAINT no_refused`);
    // skein's own refusal in a transaction (the thread exists) leaves the connection in the pool too.
    const exists = await store.create({ id: "named" }).catch((error: unknown) => error);
    expect(ThreadExistsError.isInstance(exists)).toBe(true);
    expect(connections).toBe(1);

    // A connection lost during the statement: the append waits on a lock, its server process is ended.
    const locker = new pg.Client(databaseUrl());
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query(`LOCK TABLE "${name}"."skein_records" IN EXCLUSIVE MODE`);
    // How many clients the pool holds when the append's error reaches the caller.
    let pooledAtError = -1;
    const lost = thread.append({ role: "user", text: "lost" }).catch((error: unknown) => {
      pooledAtError = pool.totalCount;
      return error;
    });
    let waiting: Array<{ pid: number }> = [];
    while (waiting.length === 0) {
      waiting = await sql<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO "${name}"."skein_messages"%'`,
      );
    }
    await sql("SELECT pg_terminate_backend($1)", [waiting[0]?.pid]);
    const error = await lost;
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toMatch(/password/);
    // The server's FATAL error is read before the socket's end: the pool dropped the client at once, rather
    // than keep it idle for the next append to meet "Connection terminated unexpectedly" (CI, once).
    expect(pooledAtError).toBe(0);
    await locker.query("ROLLBACK");
    await locker.end();

    // The pool replaces the lost connection; the thread holds what was written, once.
    await thread.append({ role: "user", text: "after" });
    const texts = (await thread.messages()).map((message) => (message.contents[0] as { text: string }).text);
    expect(texts).toEqual(["m0", "m1", "m2", "m3", "m4", "after"]);
    expect(connections).toBe(2);
    await store.close();
    await pool.end();
  });

  it("an unreachable server is a StoreUnavailableError without the password", async () => {
    const error = await openStore("postgres://skein:pw-hidden@127.0.0.1:1/postgres").then(
      () => new Error("opened"),
      (caught: unknown) => caught as Error,
    );
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).not.toContain("pw-hidden");
  });

  it("a password given as a query parameter shows neither in store.url nor in a connection error", async () => {
    const url = new URL(databaseUrl());
    url.password = "";
    url.searchParams.set("password", "hunter2hunter2");
    url.searchParams.set("schema", schema("query_password"));
    const store = await openStore(url.href);
    expect(store.url).toContain("password=***");
    expect(store.url).not.toContain("hunter2hunter2");
    await store.close();
    const error = await openStore("postgres://skein@127.0.0.1:1/postgres?password=hunter2hunter2").then(
      () => new Error("opened"),
      (caught: unknown) => caught as Error,
    );
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).toContain("127.0.0.1:1");
    expect(error.message).not.toContain("hunter2hunter2");
  });
});

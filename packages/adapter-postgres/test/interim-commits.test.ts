import { databaseUrl } from "@skein/test-support/test-postgres";
import type { LogThread } from "@skein/thread-core";
import type { LogDriver } from "@skein/thread-core/driver";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { sql, testSchemas } from "./test-sql.js";

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

/**
 * A pool whose sessions commit synchronously, as a production server does by default (the test server
 * runs with `synchronous_commit=off`, see scripts/postgres-server.mjs).
 */
function synchronousPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: 2, options: "-c synchronous_commit=on" });
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Triggers that note, for each row a statement writes to the store's records, segments and messages, the
 * `synchronous_commit` its transaction runs with: the setting its commit obeys (a local setting lasts until
 * the commit, and the triggers run after the statement's own steps).
 */
async function noteCommitSettings(schema: string): Promise<() => Promise<string[]>> {
  await sql(`CREATE TABLE "${schema}".commit_settings (seq bigserial, step text, setting text)`);
  await sql(`CREATE FUNCTION "${schema}".note_commit_setting() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO "${schema}".commit_settings (step, setting)
        VALUES (TG_TABLE_NAME || ' ' || lower(TG_OP), current_setting('synchronous_commit'));
      RETURN NULL;
    END $$`);
  for (const [table, operation] of [
    ["skein_records", "UPDATE"],
    ["skein_segments", "INSERT"],
    ["skein_messages", "INSERT"],
  ]) {
    await sql(`CREATE TRIGGER note_${table} AFTER ${operation} ON "${schema}"."${table}"
      FOR EACH ROW EXECUTE FUNCTION "${schema}".note_commit_setting()`);
  }
  return async () => {
    const rows = await sql<{ step: string; setting: string }>(
      `DELETE FROM "${schema}".commit_settings RETURNING seq, step, setting`,
    );
    // In table order: the order of one statement's steps is the planner's.
    return rows.map((row) => `${row.step}: ${row.setting}`).sort();
  };
}

describe("a streamed reply's interim writes in a postgres store", () => {
  it("commit its begin and batches with synchronous_commit off, and its end with it on", async () => {
    const pool = synchronousPool();
    const schema = schemas.schema("interim_commits");
    const store = postgresStore({ pool, schema });
    const thread = (await store.create({ id: "t" })) as LogThread;
    const settings = await noteCommitSettings(schema);
    await thread.append({ role: "user", text: "a question" });
    expect(await settings()).toEqual(["skein_messages insert: on", "skein_records update: on"]);

    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 20 });
    expect(await settings()).toEqual(["skein_records update: off"]);
    await reply.write("a first delta, a batch of its own ");
    expect(await settings()).toEqual(["skein_messages insert: off", "skein_segments insert: off"]);
    await reply.write("and a second batch");
    expect(await settings()).toEqual(["skein_messages insert: off"]);
    await reply.end();
    expect(await settings()).toEqual(["skein_messages insert: on", "skein_records update: on"]);
    // The server's own setting is untouched: the next statement on the same connections commits synchronously.
    const shown = await pool.query("SHOW synchronous_commit");
    expect(shown.rows).toEqual([{ synchronous_commit: "on" }]);
    await thread.append({ role: "user", text: "thanks" });
    expect(await settings()).toEqual(["skein_messages insert: on", "skein_records update: on"]);
    await store.close();
    await pool.end();
  });

  it("takes the checked path with synchronous_commit off only for an interim import or commit", async () => {
    const pool = synchronousPool();
    const schema = schemas.schema("interim_checked");
    const store = postgresStore({ pool, schema });
    await store.create({ id: "t" });
    const settings = await noteCommitSettings(schema);
    const driver = (store as unknown as { driver: LogDriver }).driver;
    const info = { id: "reply-segment", base: null, start: 0, createdAt: new Date().toISOString() };
    const batch = (id: string) => ({
      id,
      role: "assistant" as const,
      createdAt: info.createdAt,
      contents: [{ type: "text" as const, text: id }],
    });
    await driver.importSegment(info, [batch("b0")], 0, { interim: true });
    expect(await settings()).toEqual(["skein_messages insert: off", "skein_segments insert: off"]);
    // Written again from 0 (a retried import): the one statement refuses it, the checked transaction runs.
    await driver.importSegment(info, [batch("b0"), batch("b1")], 0, { interim: true });
    expect(await settings()).toEqual(["skein_messages insert: off"]);
    await driver.importSegment(info, [batch("b0"), batch("b1"), batch("b2")], 0);
    expect(await settings()).toEqual(["skein_messages insert: on"]);
    // A commit without the caller's record (`known`) is the checked transaction's.
    const record = await driver.read("t");
    const expectHead = record?.kind === "log" ? record.head : "";
    await driver.commit("t", { expectHead, context: { note: "interim" }, interim: true });
    expect(await settings()).toEqual(["skein_records update: off"]);
    await driver.commit("t", { expectHead, context: { note: "durable" } });
    expect(await settings()).toEqual(["skein_records update: on"]);
    await store.close();
    await pool.end();
  });
});

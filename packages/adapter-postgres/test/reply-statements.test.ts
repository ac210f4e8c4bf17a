import { databaseUrl } from "@skein/test-support/test-postgres";
import type { LogThread } from "@skein/thread-core";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { testSchemas } from "./test-sql.js";

const schemas = testSchemas();
afterAll(() => schemas.dropAll());

/** The text of each statement a pool's clients send (a named statement by its text), wake-ups left out. */
function recordStatements(pool: pg.Pool): string[] {
  const statements: string[] = [];
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [first] = args;
      const text = typeof first === "string" ? first : String((first as { text?: string }).text ?? "");
      if (!text.includes("pg_notify")) statements.push(text);
      return query(...args);
    };
  });
  return statements;
}

describe("a streamed reply in a postgres store", () => {
  it("takes one statement to begin, one per batch, and one to end that also reclaims its batches", async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    pool.on("error", () => undefined);
    const statements = recordStatements(pool);
    const schema = schemas.schema("reply_statements");
    const store = postgresStore({ pool, schema });
    const thread = (await store.create({ id: "t" })) as LogThread;
    await thread.append({ role: "user", text: "a question" });
    statements.length = 0;
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 20 });
    expect(statements).toHaveLength(1);
    await reply.write("a first delta, a batch of its own ");
    await reply.write("and a second");
    expect(statements).toHaveLength(3);
    await reply.end();
    expect(statements).toHaveLength(4);
    expect(statements.some((text) => /^\s*BEGIN/i.test(text))).toBe(false);
    const { rows } = await pool.query(`SELECT count(*)::int AS segments FROM "${schema}"."skein_segments"`);
    expect(rows[0].segments).toBe(1);
    expect((await thread.messages()).map((message) => message.contents)).toEqual([
      [{ type: "text", text: "a question" }],
      [{ type: "text", text: "a first delta, a batch of its own and a second" }],
    ]);
    await store.close();
    await pool.end();
  });
});

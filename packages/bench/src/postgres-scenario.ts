import { postgresStore } from "@skein/adapter-postgres";
import { openStore } from "@skein/thread-core";
import pg from "pg";
import type { Result } from "./compare.js";
import { type AppendLoadSubject, appendAndLoadResults } from "./in-process.js";
import type { ScalingTarget } from "./scaling.js";
import { rawRecord, workloadMessages } from "./workload.js";

/**
 * skein's postgres store beside raw node-postgres on the same pool: a single-row INSERT of the same JSON
 * (jsonb) per append, and one SELECT of a thread's rows, parsed, per load. The raw INSERT promises nothing
 * (no revision, no id check, no order under concurrency): it is the floor. The raw atomic append is the
 * floor of an append that checks the revision and the id atomically, as skein's does (a named prepared
 * statement, as skein's is).
 */
export async function postgresResults(url: string, rounds: number, count = 1000): Promise<Result[]> {
  const messages = workloadMessages(count);
  const schema = `bench_${process.pid}_${Date.now().toString(36)}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(
    `CREATE TABLE ${schema}.raw_messages (thread text NOT NULL, seq integer NOT NULL, message jsonb NOT NULL, PRIMARY KEY (thread, seq))`,
  );
  // The smallest atomic checked append: one statement that bumps the thread's revision only at the
  // expected one (its row lock orders writers) and inserts the message under a unique (thread, id) index.
  await pool.query(
    `CREATE TABLE ${schema}.atomic_threads (thread text PRIMARY KEY, revision bigint NOT NULL, length bigint NOT NULL)`,
  );
  await pool.query(
    `CREATE TABLE ${schema}.atomic_messages (thread text NOT NULL, seq bigint NOT NULL, id text NOT NULL, message jsonb NOT NULL, PRIMARY KEY (thread, seq), UNIQUE (thread, id))`,
  );
  let run = 0;
  const subjects: Array<[string, () => Promise<AppendLoadSubject>]> = [
    [
      "raw pg INSERT one row / SELECT + parse",
      async () => {
        const thread = `raw-${run++}`;
        return {
          append: (index) =>
            pool.query(
              `INSERT INTO ${schema}.raw_messages (thread, seq, message) VALUES ($1, $2, $3::jsonb)`,
              [thread, index, JSON.stringify(rawRecord(messages[index] as never, index))],
            ),
          load: async () =>
            (
              await pool.query(`SELECT message FROM ${schema}.raw_messages WHERE thread = $1 ORDER BY seq`, [
                thread,
              ])
            ).rows.length,
        };
      },
    ],
    [
      "raw atomic append (one statement: revision check, unique id, INSERT)",
      async () => {
        const thread = `atomic-${run++}`;
        await pool.query(`INSERT INTO ${schema}.atomic_threads VALUES ($1, 0, 0)`, [thread]);
        return {
          append: (index) => {
            const record = rawRecord(messages[index] as never, index);
            // A named prepared statement, as skein's is: parsed and planned once per connection. Sent
            // unnamed, this WITH statement is parsed and planned on every call, which alone made it
            // 1.8-3.4× the INSERT in runs where, named, it was 0.8-1.6× (postgres-append-profile.ts).
            return pool.query({
              name: `atomic_append_${schema}`,
              text: `WITH t AS (
                 UPDATE ${schema}.atomic_threads SET revision = revision + 1, length = length + 1
                 WHERE thread = $1 AND revision = $2 RETURNING length
               )
               INSERT INTO ${schema}.atomic_messages (thread, seq, id, message)
               SELECT $1, t.length - 1, $3, $4::jsonb FROM t`,
              values: [thread, index, record.id, JSON.stringify(record)],
            });
          },
          load: async () =>
            (
              await pool.query(
                `SELECT message FROM ${schema}.atomic_messages WHERE thread = $1 ORDER BY seq`,
                [thread],
              )
            ).rows.length,
        };
      },
    ],
    [
      "skein postgres store (same pool)",
      async () => {
        const skein = postgresStore({ pool, schema });
        const thread = await skein.create();
        return {
          append: (index) => thread.append(messages[index] as { role: "user"; text: string }),
          load: async () => (await thread.messages()).length,
          close: () => skein.close(),
        };
      },
    ],
  ];
  try {
    return await appendAndLoadResults("postgres", rounds, count, subjects);
  } finally {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  }
}

/** The 10 vs 100,000 scaling rows on a fresh schema of the server at `url`. */
export function postgresScalingTarget(url: string, runs: number): ScalingTarget {
  const target = new URL(url);
  target.searchParams.set("schema", `bench_scaling_${process.pid}_${Date.now().toString(36)}`);
  return { name: "postgres", open: () => openStore(target.href), runs };
}

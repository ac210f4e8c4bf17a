// Where a postgres append's time goes: skein's append (thread.append, and the driver's commit alone) beside
// the raw INSERT and the raw atomic append (sent unnamed and as a named prepared statement), in turns in one
// process (medians of many rounds), with the round trips (statements sent) and the client CPU of each.
// --explain adds each statement's server time (EXPLAIN ANALYZE), --plans their plans.
// Run: node --import tsx src/postgres-append-profile.ts [rounds] [only subjects whose name holds this] [--explain]
import { type PostgresLogDriver, postgresStore } from "@skein/adapter-postgres";
import pg from "pg";
import { median } from "./measure.js";
import { withPostgres } from "./postgres-server.js";
import { rawRecord, workloadMessages } from "./workload.js";

const rounds = Number(process.argv[2] ?? 15);
/** Only the subjects whose name holds this text (for --cpu-prof of one of them). */
const only = process.argv.slice(3).find((argument) => !argument.startsWith("--")) ?? "";
const count = 300;
const messages = workloadMessages(count + 1);

/** Statements sent by every pg client in this process: each is one round trip. */
let statements = 0;
/** The last statement skein's store sent (its text and values), for EXPLAIN ANALYZE. */
let lastNamed: { text: string; values: unknown[] } | undefined;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  statements++;
  const config = args[0] as { name?: string; text: string; values: unknown[] };
  if (typeof config === "object" && config.name) lastNamed = config;
  return (query as (...values: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** Median server time (planning + execution, from EXPLAIN ANALYZE) of `count` runs of a statement. */
async function serverTime(
  pool: pg.Pool,
  text: string,
  values: (index: number) => unknown[],
): Promise<{ planning: number; execution: number }> {
  const planning: number[] = [];
  const execution: number[] = [];
  for (let index = 0; index < count; index++) {
    // TIMING OFF: the executor's time without a clock read per plan node (which would favour small plans).
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${text}`, values(index));
    const plan = (rows[0] as { "QUERY PLAN": Array<Record<string, number>> })["QUERY PLAN"][0] as Record<
      string,
      number
    >;
    planning.push((plan["Planning Time"] as number) * 1000);
    execution.push((plan["Execution Time"] as number) * 1000);
  }
  if (process.argv.includes("--plans")) {
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values(count));
    process.stdout.write(`${rows.map((row) => row["QUERY PLAN"]).join("\n")}\n\n`);
  }
  return { planning: median(planning), execution: median(execution) };
}

interface Subject {
  name: string;
  start(): Promise<(index: number) => Promise<unknown>>;
}

await withPostgres(async (url) => {
  if (!url) return;
  const schema = `profile_${process.pid}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(
    `CREATE TABLE ${schema}.raw_messages (thread text NOT NULL, seq integer NOT NULL, message jsonb NOT NULL, PRIMARY KEY (thread, seq))`,
  );
  await pool.query(
    `CREATE TABLE ${schema}.atomic_threads (thread text PRIMARY KEY, revision bigint NOT NULL, length bigint NOT NULL)`,
  );
  await pool.query(
    `CREATE TABLE ${schema}.atomic_messages (thread text NOT NULL, seq bigint NOT NULL, id text NOT NULL, message jsonb NOT NULL, PRIMARY KEY (thread, seq), UNIQUE (thread, id))`,
  );
  const atomicAppend = `WITH t AS (
       UPDATE ${schema}.atomic_threads SET revision = revision + 1, length = length + 1
       WHERE thread = $1 AND revision = $2 RETURNING length
     )
     INSERT INTO ${schema}.atomic_messages (thread, seq, id, message)
     SELECT $1, t.length - 1, $3, $4::jsonb FROM t`;
  const store = postgresStore({ pool, schema });
  const driver = store.driver as PostgresLogDriver;
  let run = 0;
  const all: Subject[] = [
    {
      name: "raw INSERT",
      async start() {
        const thread = `raw-${run++}`;
        return (index) =>
          pool.query(`INSERT INTO ${schema}.raw_messages (thread, seq, message) VALUES ($1, $2, $3::jsonb)`, [
            thread,
            index,
            JSON.stringify(rawRecord(messages[index] as never, index)),
          ]);
      },
    },
    ...[false, true].map((named) => ({
      name: `raw atomic append (${named ? "named" : "unnamed"})`,
      async start() {
        const thread = `atomic-${run++}`;
        await pool.query(`INSERT INTO ${schema}.atomic_threads VALUES ($1, 0, 0)`, [thread]);
        return (index: number) => {
          const record = rawRecord(messages[index] as never, index);
          const values = [thread, index, record.id, JSON.stringify(record)];
          return pool.query(
            named ? { name: "atomic_append", text: atomicAppend, values } : atomicAppend,
            values,
          );
        };
      },
    })),
    {
      name: "skein driver.commit (no thread-core)",
      async start() {
        const thread = await store.create();
        let record = (await driver.read(thread.id)) as never as { revision: number; head: string };
        return async (index) => {
          const message = {
            id: `m-${run}-${index}`,
            role: "user",
            createdAt: new Date().toISOString(),
            contents: [{ type: "text", text: (messages[index] as { text: string }).text }],
          };
          const result = await driver.commit(thread.id, {
            expectHead: record.head,
            append: [message as never],
            known: record as never,
          } as never);
          record = result.record as never;
        };
      },
    },
    {
      name: "skein thread.append",
      async start() {
        const thread = await store.create();
        return (index) => thread.append(messages[index] as { role: "user"; text: string });
      },
    },
  ];
  const subjects = all.filter((subject, index) => index === 0 || subject.name.includes(only));
  const times = subjects.map(() => [] as number[]);
  const cpu = subjects.map(() => [] as number[]);
  const sent = subjects.map(() => [] as number[]);
  for (let round = -3; round < rounds; round++) {
    for (let turn = 0; turn < subjects.length; turn++) {
      const index = (turn + Math.max(round, 0)) % subjects.length;
      const append = await (subjects[index] as Subject).start();
      const before = statements;
      const cpuBefore = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let message = 0; message < count; message++) await append(message);
      const elapsed = Number(process.hrtime.bigint() - start) / 1000 / count;
      const used = process.cpuUsage(cpuBefore);
      if (round < 0) continue;
      (times[index] as number[]).push(elapsed);
      (cpu[index] as number[]).push((used.user + used.system) / count);
      (sent[index] as number[]).push((statements - before) / count);
    }
  }
  const floor = median(times[0] as number[]);
  for (const [index, subject] of subjects.entries()) {
    const time = median(times[index] as number[]);
    process.stdout.write(
      `${subject.name.padEnd(40)} ${time.toFixed(1).padStart(7)} µs  ${(time / floor).toFixed(2)}×  client CPU ${median(cpu[index] as number[]).toFixed(1)} µs  statements ${median(sent[index] as number[]).toFixed(2)}\n`,
    );
  }
  // Whether the pooled connections run skein's statement on a generic plan (planned once) or plan it anew.
  const clients = await Promise.all([0, 1, 2, 3].map(() => pool.connect()));
  for (const client of clients) {
    const { rows } = await client.query(
      "SELECT left(statement, 30) AS statement, generic_plans, custom_plans FROM pg_prepared_statements",
    );
    for (const row of rows) process.stdout.write(`prepared: ${JSON.stringify(row)}\n`);
    client.release();
  }
  if (process.argv.includes("--explain")) {
    const raw = `INSERT INTO ${schema}.raw_messages (thread, seq, message) VALUES ($1, $2, $3::jsonb)`;
    const atomic = atomicAppend;
    await pool.query(`INSERT INTO ${schema}.atomic_threads VALUES ('explain', 0, 0)`);
    const thread = await store.create();
    await thread.append({ role: "user", text: "first" });
    const skein = lastNamed as { text: string; values: unknown[] };
    const json = (index: number) => JSON.stringify(rawRecord(messages[index] as never, index));
    const results: Array<[string, { planning: number; execution: number }]> = [
      ["raw INSERT", await serverTime(pool, raw, (index) => ["explain", index, json(index)])],
      [
        "raw atomic append",
        await serverTime(pool, atomic, (index) => ["explain", index, `m-${index}`, json(index)]),
      ],
      [
        "skein's append statement",
        await serverTime(pool, skein.text, (index) => [
          skein.values[0],
          null,
          skein.values[2],
          new Date().toISOString(),
          Buffer.from(`explain-${index}`),
          false,
          json(index),
        ]),
      ],
    ];
    for (const [name, time] of results) {
      process.stdout.write(
        `EXPLAIN ANALYZE ${name.padEnd(28)} planning ${time.planning.toFixed(1).padStart(6)} µs  execution ${time.execution.toFixed(1).padStart(6)} µs\n`,
      );
    }
  }
  await store.close();
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
});

// Client CPU per postgres append, layer by layer, in turns in one process (medians of many rounds): the raw
// INSERT, skein's own append statement sent straight through pg (object rows, array rows), the same through
// the store's connection, the driver's commit, and thread.append. Each step down adds one layer, so the
// differences say which layer costs what. CPU (process.cpuUsage) is less sensitive to load than wall time.
// Run: node --import tsx src/postgres-append-cpu.ts [rounds] [only subjects whose name holds this]
// With SKEIN_POSTGRES_BEFORE=<a built copy of another version's index.js>, that version's thread.append runs
// in the same turns, for a before/after on the same server and load.
import { type PostgresLogDriver, postgresStore } from "@skein/adapter-postgres";
import pg from "pg";
import { median } from "./measure.js";
import { withPostgres } from "./postgres-server.js";
import { rawRecord, workloadMessages } from "./workload.js";

const rounds = Number(process.argv[2] ?? 15);
/** Only the subjects whose name holds this text (for --cpu-prof of one of them); "|" separates several. */
const only = process.argv[3] ?? "";
const count = 300;
const messages = workloadMessages(count + 1);

/** The last named statement skein's store sent, to send the same one straight through pg. */
let lastNamed: { name: string; text: string; values: unknown[] } | undefined;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function seen(this: pg.Client, ...args: unknown[]) {
  const config = args[0] as { name?: string; text: string; values: unknown[] };
  if (typeof config === "object" && config.name?.startsWith("skein_")) lastNamed = config as never;
  return (query as (...values: unknown[]) => unknown).apply(this, args);
} as typeof query;

interface Subject {
  name: string;
  start(): Promise<(index: number) => Promise<unknown>>;
}

await withPostgres(async (url) => {
  if (!url) return;
  const schema = `cpu_${process.pid}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(
    `CREATE TABLE ${schema}.raw_messages (thread text NOT NULL, seq integer NOT NULL, message jsonb NOT NULL, PRIMARY KEY (thread, seq))`,
  );
  const store = postgresStore({ pool, schema });
  const beforePath = process.env.SKEIN_POSTGRES_BEFORE;
  const before = beforePath
    ? ((await import(beforePath)) as { postgresStore: typeof postgresStore }).postgresStore({ pool, schema })
    : undefined;
  const driver = store.driver as PostgresLogDriver;
  let run = 0;
  /** skein's statement for a fresh thread, sent `through` something, with the values an append sends. */
  const statementSubject = (
    name: string,
    through: (statement: typeof lastNamed & {}) => Promise<unknown>,
  ) => ({
    name,
    async start() {
      const thread = await store.create();
      await thread.append({ role: "user", text: "first" });
      const statement = lastNamed as typeof lastNamed & {};
      const values = statement.values;
      const label = run++;
      return (index: number) => {
        const record = rawRecord(messages[index] as never, index);
        const text = JSON.stringify(record);
        return through({
          ...statement,
          values: [
            values[0],
            null,
            values[2],
            new Date().toISOString(),
            Buffer.from(`${record.id}-${label}`, "utf16le").swap16(),
            false,
            text,
          ],
        });
      };
    },
  });
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
    statementSubject("skein statement, pool.query", (statement) => pool.query(statement)),
    statementSubject("skein statement, pool.query rowMode array", (statement) =>
      pool.query({ ...statement, rowMode: "array" }),
    ),
    statementSubject("skein statement, connection.prepared", (statement) =>
      driver.connection.prepared(statement, statement.values),
    ),
    {
      name: "skein driver.commit",
      async start() {
        const thread = await store.create();
        let record = (await driver.read(thread.id)) as never as { revision: number; head: string };
        run++;
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
    {
      // The same with each message's id given, as the raw INSERT's record has it: thread-core then makes no
      // sortable id (which reads fresh random bytes in every new millisecond), so the difference is its cost.
      name: "skein thread.append, ids given",
      async start() {
        const thread = await store.create();
        const label = run++;
        return (index) =>
          thread.append({
            ...(messages[index] as { role: "user"; text: string }),
            id: `m-${label}-${index}`,
          });
      },
    },
    ...(before
      ? [
          {
            name: "skein thread.append (before)",
            async start() {
              const thread = await before.create();
              return (index: number) => thread.append(messages[index] as { role: "user"; text: string });
            },
          },
        ]
      : []),
  ];
  const subjects = all.filter((subject) => only.split("|").some((part) => subject.name.includes(part)));
  const cpu = subjects.map(() => [] as number[]);
  const times = subjects.map(() => [] as number[]);
  for (let round = -3; round < rounds; round++) {
    for (let turn = 0; turn < subjects.length; turn++) {
      const index = (turn + Math.max(round, 0)) % subjects.length;
      const append = await (subjects[index] as Subject).start();
      const cpuBefore = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let message = 0; message < count; message++) await append(message);
      const elapsed = Number(process.hrtime.bigint() - start) / 1000 / count;
      const used = process.cpuUsage(cpuBefore);
      if (round < 0) continue;
      (times[index] as number[]).push(elapsed);
      (cpu[index] as number[]).push((used.user + used.system) / count);
    }
  }
  const floor = median(times[0] as number[]);
  for (const [index, subject] of subjects.entries()) {
    const time = median(times[index] as number[]);
    process.stdout.write(
      `${subject.name.padEnd(44)} client CPU ${median(cpu[index] as number[])
        .toFixed(1)
        .padStart(6)} µs  wall ${time.toFixed(1).padStart(6)} µs  ${(time / floor).toFixed(2)}×\n`,
    );
  }
  await store.close();
  await before?.close();
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
});

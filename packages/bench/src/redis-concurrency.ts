import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openStore, type Thread } from "@skein/thread-core";
import { createClient } from "redis";
import { median } from "./measure.js";
import { ATOMIC_APPEND } from "./redis-atomic-append.js";
import { rawRecord, workloadMessages } from "./workload.js";

/** The load: this many threads appended at once, each this many appends one after another. */
export const CONCURRENT_THREADS = 50;
export const APPENDS_PER_THREAD = 100;

export type ConcurrencySubject = "skein" | "atomic";

/** skein through one store beside the raw atomic Lua append through one client, with the same concurrency. */
export interface RedisConcurrencyRow {
  processes: number;
  /** Threads appended at once in each process. */
  threads: number;
  appendsPerThread: number;
  /** Aggregate appends per second over all processes: the median round, and the slowest and fastest. */
  skein: number;
  skeinSpread: [number, number];
  atomic: number;
  atomicSpread: [number, number];
  /** skein's aggregate rate over the raw atomic append's (the target is ≥ 0.7). */
  ratio: number;
}

/**
 * One round of one subject in this process: `threads` threads (or raw keys) made ready by `prepare`, then
 * `run` appends to each `appends` times in series, all threads at once, and resolves when all are done.
 */
export interface ConcurrentRound {
  run(): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * Writers for both subjects on one Redis: skein through ONE store (one client), the raw atomic Lua append
 * through ONE node-redis client, so the two differ only by what skein adds.
 */
export async function concurrentWriters(url: string, threads: number, appends: number) {
  const messages = workloadMessages(appends);
  const client = createClient({ url });
  await client.connect();
  const sha = await client.scriptLoad(ATOMIC_APPEND);
  const store = await openStore(url);
  let round = 0;
  const prepare = async (subject: ConcurrencySubject): Promise<ConcurrentRound> => {
    if (subject === "skein") {
      const opened: Thread[] = await Promise.all(Array.from({ length: threads }, () => store.create()));
      // A first append, untimed, as a server's threads have: the head's info is then known to the store.
      await Promise.all(opened.map((thread) => thread.append({ role: "user", text: "hello" })));
      return {
        run: () =>
          Promise.all(
            opened.map(async (thread) => {
              for (let index = 0; index < appends; index++) {
                await thread.append(messages[index] as { role: "user"; text: string });
              }
            }),
          ).then(() => undefined),
        cleanup: () => Promise.all(opened.map((thread) => store.delete(thread.id))).then(() => undefined),
      };
    }
    const tag = `bench:concurrent:${process.pid}:${round++}`;
    const keys = Array.from({ length: threads }, (_, thread) => {
      const slot = `{${tag}:${thread}}`;
      return [`${slot}:record`, `${slot}:messages`, `${slot}:ids`];
    });
    return {
      run: () =>
        Promise.all(
          keys.map(async (threadKeys) => {
            for (let index = 0; index < appends; index++) {
              const record = rawRecord(messages[index] as never, index);
              await client.evalSha(sha, {
                keys: threadKeys,
                arguments: ["", record.id, JSON.stringify(record)],
              });
            }
          }),
        ).then(() => undefined),
      cleanup: async () => {
        for (const threadKeys of keys) await client.del(threadKeys);
      },
    };
  };
  return {
    prepare,
    async close() {
      await store.close();
      await client.quit();
    },
  };
}

/** Seconds `work` takes. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Subjects in turns, the order alternating from round to round, after one untimed round each. */
async function inTurns(rounds: number, once: (subject: ConcurrencySubject) => Promise<number>) {
  const rates: Record<ConcurrencySubject, number[]> = { skein: [], atomic: [] };
  await once("skein");
  await once("atomic");
  for (let index = 0; index < rounds; index++) {
    const order: ConcurrencySubject[] = index % 2 ? ["atomic", "skein"] : ["skein", "atomic"];
    for (const subject of order) rates[subject].push(await once(subject));
  }
  return rates;
}

function row(
  processes: number,
  threads: number,
  appends: number,
  rates: Record<ConcurrencySubject, number[]>,
): RedisConcurrencyRow {
  const spread = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
  const skein = median(rates.skein);
  const atomic = median(rates.atomic);
  return {
    processes,
    threads,
    appendsPerThread: appends,
    skein,
    skeinSpread: spread(rates.skein),
    atomic,
    atomicSpread: spread(rates.atomic),
    ratio: skein / atomic,
  };
}

/** `threads` threads appended at once through one store in this process, beside the raw atomic append. */
export async function oneProcessRow(
  url: string,
  rounds: number,
  threads = CONCURRENT_THREADS,
  appends = APPENDS_PER_THREAD,
): Promise<RedisConcurrencyRow> {
  const writers = await concurrentWriters(url, threads, appends);
  try {
    const rates = await inTurns(rounds, async (subject) => {
      const round = await writers.prepare(subject);
      try {
        return (threads * appends) / (await timed(() => round.run()));
      } finally {
        await round.cleanup();
      }
    });
    return row(1, threads, appends, rates);
  } finally {
    await writers.close();
  }
}

const CHILD = fileURLToPath(new URL("./redis-concurrency-child.ts", import.meta.url));

/** A child process running one subject's writers; it says "ready", runs on "go", says "done", and exits. */
interface Child {
  ready: Promise<void>;
  done: Promise<void>;
  go(): void;
}

function startChild(url: string, subject: ConcurrencySubject, threads: number, appends: number): Child {
  const child = spawn(
    process.execPath,
    [...process.execArgv, CHILD, url, subject, String(threads), String(appends)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let output = "";
  let onReady: () => void = () => {};
  let onDone: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const done = new Promise<void>((resolve, reject) => {
    onDone = resolve;
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`a ${subject} writer process exited with ${code}`));
    });
  });
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes("ready\n")) onReady();
    if (output.includes("done\n")) onDone();
  });
  return { ready, done, go: () => child.stdin.end("go\n") };
}

/**
 * `processes` processes, each appending to `threads` threads at once through its own store (or its own
 * client for the raw atomic append), all started together: the aggregate rate over every process.
 */
export async function manyProcessesRow(
  url: string,
  rounds: number,
  processes = 4,
  threads = CONCURRENT_THREADS,
  appends = APPENDS_PER_THREAD,
): Promise<RedisConcurrencyRow> {
  const rates = await inTurns(rounds, async (subject) => {
    const children = Array.from({ length: processes }, () => startChild(url, subject, threads, appends));
    await Promise.all(children.map((child) => child.ready));
    const seconds = await timed(async () => {
      for (const child of children) child.go();
      await Promise.all(children.map((child) => child.done));
    });
    return (processes * threads * appends) / seconds;
  });
  return row(processes, threads, appends, rates);
}

/** Both concurrency rows: one process with 50 threads, and 4 processes with 50 threads each. */
export async function redisConcurrencyRows(url: string, rounds: number): Promise<RedisConcurrencyRow[]> {
  process.stderr.write("  redis concurrency: 1 process × 50 threads…\n");
  const one = await oneProcessRow(url, rounds);
  process.stderr.write("  redis concurrency: 4 processes × 50 threads…\n");
  const many = await manyProcessesRow(url, Math.max(1, Math.ceil(rounds / 2)));
  return [one, many];
}

/** The rows as a table: headers, then one line per row. */
export function concurrencyTable(rows: RedisConcurrencyRow[]): [string[], string[][]] {
  const rate = (value: number, spread: [number, number]) =>
    `${value.toFixed(0)} (${spread[0].toFixed(0)}–${spread[1].toFixed(0)})`;
  return [
    ["processes × threads", "appends each", "skein appends/s", "raw atomic appends/s", "skein / raw"],
    rows.map((row) => [
      `${row.processes} × ${row.threads}`,
      String(row.appendsPerThread),
      rate(row.skein, row.skeinSpread),
      rate(row.atomic, row.atomicSpread),
      `${row.ratio.toFixed(2)}×`,
    ]),
  ];
}

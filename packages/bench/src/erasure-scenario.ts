import type { ThreadStore } from "@skein/thread-core";
import {
  fsFactory,
  memoryFactory,
  postgresFactory,
  redisFactory,
  type StoreFactory,
} from "./fresh-stores.js";
import type { MeasuredAt } from "./sized-tables.js";

/** The owner whose threads are erased, and how many threads another owner keeps beside them. */
const OWNER = "bench-erased";
const OTHER_THREADS_EVERY = 10;
/** Threads filled at once. */
const FILL_CONCURRENCY = 16;

/** Issue 40's row on one store: `store.erase` of an owner's threads against deleting them one by one. */
export interface ErasureRow {
  store: string;
  threads: number;
  /** Timed pairs (after an untimed warm-up pair); the times are their medians. Absent in older figures: one cold run. */
  runs?: number;
  eraseMs: number;
  oneByOneMs: number;
  /** eraseMs / oneByOneMs: the target is at most 3. */
  ratio: number;
  /** The erasure reported every thread and left none of the owner's, and the other owner's threads stayed. */
  verified: boolean;
  note?: string;
}

export interface ErasureFigures {
  measured: MeasuredAt;
  rows: ErasureRow[];
}

/**
 * Fills a fresh store with `threads` threads of the owner (two messages and a checkpoint each) and one of
 * another owner per ten, and returns the owner's ids.
 */
async function fill(store: ThreadStore, threads: number): Promise<string[]> {
  const ids: string[] = [];
  const make = async (index: number) => {
    const own = await store.create({ id: `t-${index}`, owner: OWNER, title: `thread ${index}` });
    await own.append([
      { role: "user", text: `question ${index}` },
      { role: "assistant", text: `answer ${index}` },
    ]);
    await own.checkpoint(`after ${index}`);
    ids.push(own.id);
    if (index % OTHER_THREADS_EVERY === 0) await store.create({ id: `other-${index}`, owner: "bench-kept" });
  };
  for (let from = 0; from < threads; from += FILL_CONCURRENCY) {
    const batch = Array.from({ length: Math.min(FILL_CONCURRENCY, threads - from) }, (_, at) => from + at);
    await Promise.all(batch.map(make));
  }
  return ids;
}

/** One timed pair: the erase of one fresh store and the deletes of another, in the order given. */
interface TimedPair {
  eraseMs: number;
  oneByOneMs: number;
  verified: boolean;
}

async function timedPair(factory: StoreFactory, threads: number, eraseFirst: boolean): Promise<TimedPair> {
  const erased = await factory.fresh();
  const deleted = await factory.fresh();
  try {
    await fill(erased.store, threads);
    const ids = await fill(deleted.store, threads);
    let eraseMs = 0;
    let oneByOneMs = 0;
    let reported = 0;
    const erase = async () => {
      const started = performance.now();
      reported = (await erased.store.erase({ owner: OWNER })).threads;
      eraseMs = performance.now() - started;
    };
    const deleteOneByOne = async () => {
      const started = performance.now();
      for (const id of ids) await deleted.store.delete(id);
      oneByOneMs = performance.now() - started;
    };
    for (const step of eraseFirst ? [erase, deleteOneByOne] : [deleteOneByOne, erase]) {
      // The fill's garbage is collected before each step (with --expose-gc, as `npm run bench` runs), so
      // neither pays for it.
      (globalThis as { gc?: () => void }).gc?.();
      await step();
    }

    const left = (await erased.store.list({ owner: OWNER, limit: 1 })).items.length;
    const kept = (await erased.store.list({ owner: "bench-kept", limit: 1000 })).items.length;
    const verified = reported === threads && left === 0 && kept === Math.ceil(threads / OTHER_THREADS_EVERY);
    return { eraseMs, oneByOneMs, verified };
  } finally {
    await erased.dispose();
    await deleted.dispose();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * One store's row: pairs of fresh stores filled alike; in each, one erased with `store.erase({ owner })`,
 * the other's threads deleted one by one with `store.delete(id)` (the ids known beforehand, which erase must
 * find). Each timed from the call to its end. A first pair of a tenth the size warms both paths up untimed
 * (a cold first run measured V8's compiling more than either path); then `runs` pairs, the order of the two
 * alternating from pair to pair so neither always runs on a warmer process, and each time is the median.
 */
export async function erasureRow(factory: StoreFactory, threads: number, runs = 1): Promise<ErasureRow> {
  await timedPair(factory, Math.max(1, Math.ceil(threads / 10)), true);
  const pairs: TimedPair[] = [];
  for (let run = 0; run < runs; run++) pairs.push(await timedPair(factory, threads, run % 2 === 0));
  const eraseMs = median(pairs.map((pair) => pair.eraseMs));
  const oneByOneMs = median(pairs.map((pair) => pair.oneByOneMs));
  // The ratio is the median of each pair's: both sides of a pair ran a moment apart, under the same load.
  const ratio = median(pairs.map((pair) => pair.eraseMs / pair.oneByOneMs));
  const verified = pairs.every((pair) => pair.verified);
  return { store: factory.name, threads, runs, eraseMs, oneByOneMs, ratio, verified };
}

/** The rows as a table: store, threads, runs, both times (medians), ratio, whether verified. */
export function erasureTable(rows: readonly ErasureRow[]): [string[], string[][]] {
  return [
    ["store", "threads", "runs", "store.erase", "delete one by one", "ratio (target ≤ 3×)", "check"],
    rows.map((row) =>
      row.note
        ? [row.store, String(row.threads), "", "", "", "", row.note]
        : [
            row.store,
            row.threads.toLocaleString("en-US"),
            row.runs === undefined ? "1, cold" : `${row.runs}, warm`,
            `${row.eraseMs.toFixed(0)} ms`,
            `${row.oneByOneMs.toFixed(0)} ms`,
            `${row.ratio.toFixed(2)}×`,
            row.verified ? "verified" : "BROKEN",
          ],
    ),
  ];
}

/** Issue 40's rows on every local store here: an owner of 1,000 threads (100 with `--quick`). */
export async function erasureFigures(options: {
  quick: boolean;
  redisUrl: string | undefined;
  postgresUrl: string | undefined;
  /** When, where and how it runs (report.ts's `machineName`, which this file cannot import). */
  measured: MeasuredAt;
}): Promise<ErasureFigures> {
  const threads = options.quick ? 100 : 1_000;
  const runs = options.quick ? 1 : 5;
  const factories: StoreFactory[] = [memoryFactory(1), fsFactory(1)];
  if (options.redisUrl) factories.push(redisFactory("redis", options.redisUrl, 1));
  if (options.postgresUrl) factories.push(postgresFactory(options.postgresUrl, 1));
  const rows: ErasureRow[] = [];
  for (const factory of factories) {
    process.stderr.write(`  erasure: ${factory.name}…\n`);
    try {
      rows.push(await erasureRow(factory, threads, runs));
    } catch (error) {
      const note = `not run: ${(error as Error).message.split("\n")[0]}`;
      rows.push({ store: factory.name, threads, eraseMs: 0, oneByOneMs: 0, ratio: 0, verified: false, note });
    }
  }
  return { measured: options.measured, rows };
}

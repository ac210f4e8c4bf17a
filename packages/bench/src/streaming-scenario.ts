import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { LogThread, type ThreadStore } from "@skein/thread-core";
import type { StoreFactory } from "./fresh-stores.js";
import { measureTimedInTurns, median, type Timed } from "./measure.js";

/** Issue 39's reply: 4,000 tokens (about 4 characters each) in deltas of 20 tokens. */
export const STREAMING_SIZES = { tokens: 4_000, deltaTokens: 20, followDeltas: 40, followGapMs: 100 };
/** `beginMessage`'s default `flushMs`: the follow row's latency is set beside twice this. */
export const FLUSH_MS = 50;

/** One store's streaming figures. */
export interface StreamingRow {
  store: string;
  /** Median µs of appending the reply whole, and of streaming it (begin, every delta, end). */
  wholeMicros?: number;
  streamedMicros?: number;
  /** Median ms from a delta's `write` to its arrival in a follower in another process. */
  followMedianMs?: number;
  followDeltas?: number;
  note?: string;
}

const deltas = (() => {
  const text = "word ".repeat(STREAMING_SIZES.deltaTokens * 4).slice(0, STREAMING_SIZES.deltaTokens * 4);
  return Array.from({ length: STREAMING_SIZES.tokens / STREAMING_SIZES.deltaTokens }, () => text);
})();

async function localThread(store: ThreadStore): Promise<LogThread> {
  const thread = await store.create();
  if (!LogThread.isInstance(thread)) throw new Error("the store's native threads are not log threads");
  return thread;
}

/**
 * The reply appended whole beside the same reply streamed, its deltas written back to back (as fast as the
 * writer takes them: what a reply costs the store, not how long a model takes to make it), in turns.
 */
async function replyCosts(store: ThreadStore, runs: number): Promise<[number, number]> {
  const whole = await localThread(store);
  const streamed = await localThread(store);
  const text = deltas.join("");
  const [wholeMicros, streamedMicros] = await measureTimedInTurns(
    [
      (timed: Timed) => timed(() => whole.append({ role: "assistant", text })),
      (timed: Timed) =>
        timed(async () => {
          const reply = await streamed.beginMessage({ role: "assistant" });
          for (const delta of deltas) await reply.write(delta);
          return reply.end();
        }),
    ],
    runs,
    Math.min(5, runs),
    Math.min(10, runs),
  );
  return [wholeMicros as number, streamedMicros as number];
}

const CHILD = fileURLToPath(new URL("./streaming-follow-child.ts", import.meta.url));

/**
 * A reply written here, `followGapMs` between deltas, followed by a process of its own through another
 * store on the same URL: the median time from each `write` to the follower's receipt (one clock: one machine).
 */
async function followLatency(store: ThreadStore, url: string): Promise<number[]> {
  const thread = await localThread(store);
  const reply = await thread.beginMessage({ role: "assistant", flushMs: FLUSH_MS });
  const child = spawn(process.execPath, [...process.execArgv, CHILD, url, thread.id, reply.id], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  const exited = new Promise<void>((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`the follower exited with ${code}`)),
    ),
  );
  const ready = new Promise<void>((resolve) =>
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready\n")) resolve();
    }),
  );
  await Promise.race([ready, exited]);
  const written: number[] = [];
  for (let index = 0; index < STREAMING_SIZES.followDeltas; index++) {
    written.push(performance.timeOrigin + performance.now());
    await reply.write(`delta ${index} `);
    await sleep(STREAMING_SIZES.followGapMs);
  }
  await reply.end();
  await exited;
  const received = new Map<number, number>();
  for (const line of output.split("\n")) {
    const [offset, at] = line.split(" ").map(Number);
    if (line.includes(" ") && offset !== undefined && at !== undefined) received.set(offset, at);
  }
  return written.flatMap((at, offset) => {
    const arrived = received.get(offset);
    return arrived === undefined ? [] : [arrived - at];
  });
}

/** Issue 39's rows on one store: the reply's cost streamed vs whole and, given its URL, the follow latency. */
export async function streamingRow(factory: StoreFactory): Promise<StreamingRow> {
  const { store, url, dispose } = await factory.fresh();
  try {
    process.stderr.write(`  streaming: ${factory.name}…\n`);
    const [wholeMicros, streamedMicros] = await replyCosts(store, factory.runs);
    const row: StreamingRow = { store: factory.name, wholeMicros, streamedMicros };
    if (url) {
      const latencies = await followLatency(store, url);
      row.followMedianMs = median(latencies);
      row.followDeltas = latencies.length;
    }
    return row;
  } finally {
    await dispose();
  }
}

/** The stores issue 39's rows run on: the three whose followers can be other processes. */
export async function streamingRows(factories: StoreFactory[]): Promise<StreamingRow[]> {
  const rows: StreamingRow[] = [];
  for (const factory of factories) {
    try {
      rows.push(await streamingRow(factory));
    } catch (error) {
      rows.push({ store: factory.name, note: `not run: ${(error as Error).message.split("\n")[0]}` });
    }
  }
  return rows;
}

/**
 * Profiling entry for the runtime row, apart from the full bench:
 *   node --import tsx src/runtime-profile.ts [memory|redis|both] [threads] [messagesPerThread] [rounds]
 * Prints the runtime rows (service beside the store's own appends) and, on Redis, the commands the server
 * ran per message for the service and for the floor (INFO commandstats before and after one run each).
 * Add --cpu-prof to the node flags for a CPU profile of the same work.
 */

import { openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import { createClient } from "redis";
// Not exported by thread-service: its bench helper, read from source (bench is private and never packed).
import { benchThroughput } from "../../thread-service/src/throughput-bench.js";
import { printTable } from "./measure.js";
import { withRedis } from "./redis-server.js";
import { storeAppendFloor } from "./runtime-floor.js";
import { runtimeRows } from "./runtime-scenario.js";

const [which = "both", threadsText = "1000", perThreadText = "10", roundsText = "3"] = process.argv.slice(2);
const threads = Number(threadsText);
const messagesPerThread = Number(perThreadText);
const rounds = Number(roundsText);

type Counts = Map<string, number>;

/** The store with every call of its own and of the threads it hands out counted, by method name. */
function countingStore(store: ThreadStore, counts: Counts): ThreadStore {
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  const wrapThread = (thread: Thread): Thread =>
    new Proxy(thread, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          if (property !== "toJSON") count(`thread.${property}`);
          return value.apply(target, args);
        };
      },
    });
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        count(`store.${property}`);
        const result = value.apply(target, args);
        return result instanceof Promise
          ? result.then((found) =>
              found && typeof found === "object" && "append" in found ? wrapThread(found as Thread) : found,
            )
          : result;
      };
    },
  });
}

function formatCounts(counts: Counts, messages: number): string {
  let total = 0;
  const parts: string[] = [];
  for (const [name, calls] of [...counts].sort((a, b) => b[1] - a[1])) {
    total += calls;
    parts.push(`${name} ${(calls / messages).toFixed(2)}`);
  }
  return `${(total / messages).toFixed(2)} (${parts.join(", ")})`;
}

async function commandCounts(url: string): Promise<Counts> {
  const client = createClient({ url });
  await client.connect();
  try {
    const counts: Counts = new Map();
    for (const line of (await client.info("commandstats")).split("\n")) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (match) counts.set(match[1] as string, Number(match[2]));
    }
    return counts;
  } finally {
    await client.quit();
  }
}

async function perMessage(url: string, work: () => Promise<unknown>, messages: number): Promise<string> {
  const before = await commandCounts(url);
  await work();
  const after = await commandCounts(url);
  const parts: string[] = [];
  let total = 0;
  for (const [name, calls] of after) {
    if (name === "info") continue;
    const delta = calls - (before.get(name) ?? 0);
    if (delta > 0) parts.push(`${name} ${(delta / messages).toFixed(2)}`);
    total += delta;
  }
  return `${(total / messages).toFixed(2)} (${parts.join(", ")})`;
}

await withRedis(async (redisUrl) => {
  const url = which === "memory" ? undefined : redisUrl;
  if (which !== "redis" || url) {
    const rows = await runtimeRows(url, { threads, messagesPerThread, rounds });
    printTable(
      ["store", "subject", "messages/s", "spread", "ratio"],
      rows
        .filter((row) => which !== "redis" || row.store === "redis")
        .map((row) => [
          row.store,
          row.subject,
          row.messagesPerSecond.toFixed(0),
          `${row.spread[0].toFixed(0)}–${row.spread[1].toFixed(0)}`,
          `${row.ratio.toFixed(2)}×`,
        ]),
    );
  }
  // Store operations per message (each one round trip or more on a server store), creation and clean-up
  // excluded: the difference between a run with messages and one without.
  for (const [name, target] of [["memory", "memory:"], ...(url ? [["redis", url]] : [])] as const) {
    const store = await openStore(target);
    try {
      const empty: Counts = new Map();
      await benchThroughput({ store: countingStore(store, empty), threads: 100, messagesPerThread: 0 });
      const full: Counts = new Map();
      await benchThroughput({ store: countingStore(store, full), threads: 100, messagesPerThread });
      for (const [key, calls] of empty) full.set(key, (full.get(key) ?? 0) - calls);
      for (const [key, calls] of full) if (calls === 0) full.delete(key);
      console.log(`${name}: store operations per message: ${formatCounts(full, 100 * messagesPerThread)}`);
    } finally {
      await store.close();
    }
  }
  if (url) {
    const store = await openStore(url);
    try {
      // Counted on a run that includes thread creation and clean-up, so creation is counted separately below.
      const messages = threads * messagesPerThread;
      const created = await perMessage(
        url,
        () => benchThroughput({ store, threads, messagesPerThread: 0 }),
        messages,
      );
      const service = await perMessage(
        url,
        () => benchThroughput({ store, threads, messagesPerThread }),
        messages,
      );
      const floorCreated = await perMessage(
        url,
        () => storeAppendFloor({ store, threads, messagesPerThread: 0, concurrency: 64 }),
        messages,
      );
      const floor = await perMessage(
        url,
        () => storeAppendFloor({ store, threads, messagesPerThread, concurrency: 64 }),
        messages,
      );
      console.log(`redis commands per message, service run:   ${service}`);
      console.log(`  of which thread creation and clean-up:  ${created}`);
      console.log(`redis commands per message, floor run:     ${floor}`);
      console.log(`  of which thread creation and clean-up:  ${floorCreated}`);
    } finally {
      await store.close();
    }
  }
});

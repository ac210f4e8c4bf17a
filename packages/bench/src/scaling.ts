import type { Checkpoint, Thread, ThreadStore } from "@skein/thread-core";
import { formatMicros, measureInTurns } from "./measure.js";

/** One store to scale-test: how to open it (a fresh, empty one) and how many timed runs it affords. */
export interface ScalingTarget {
  name: string;
  open: () => Promise<ThreadStore>;
  runs?: number;
}

const SIZES = [10, 100_000] as const;
const BATCH = 1000;
/** The rows that only read. */
const READS = new Set([
  "view(last 20)",
  "messages(last 20)",
  "message(id)",
  "messages({ before, limit: 20 })",
]);

export async function filledThread(store: ThreadStore, size: number): Promise<Thread> {
  const thread = await store.create();
  for (let from = 0; from < size; from += BATCH) {
    const count = Math.min(BATCH, size - from);
    await thread.append(
      Array.from({ length: count }, (_, index) => ({
        role: (from + index) % 2 ? ("assistant" as const) : ("user" as const),
        text: `message ${from + index}: ${"lorem ipsum dolor sit amet ".repeat(6)}`,
      })),
    );
  }
  return thread;
}

/**
 * Each operation's median at 10 and at 100,000 messages, and the ratio (close to 1 means O(1)). Both
 * threads live in one store and are measured in turns, so noise and drift fall on both alike.
 */
export async function scalingRows(target: ScalingTarget): Promise<string[][]> {
  const runs = target.runs ?? 200;
  const store = await target.open();
  try {
    const threads: Thread[] = [];
    for (const size of SIZES) threads.push(await filledThread(store, size));
    const anchors = await Promise.all(threads.map((thread) => thread.checkpoint("anchor")));
    // A message in the middle of each thread, before its anchor, so every rollback keeps it.
    const middles = await Promise.all(
      threads.map(async (thread, index) => {
        const [middle] = await thread.messages({ last: Math.ceil((SIZES[index] as number) / 2), limit: 1 });
        return (middle as { id: string }).id;
      }),
    );
    let operationCount = 0;
    const operations: Record<string, (thread: Thread, index: number) => Promise<unknown>> = {
      append: (thread) => thread.append({ role: "user", text: "one more" }),
      "append({ operationId })": (thread) =>
        thread.append({ role: "user", text: "one more" }, { operationId: `op-${operationCount++}` }),
      fork: (thread) => thread.fork(),
      checkpoint: (thread) => thread.checkpoint(),
      rollback: (thread, index) => thread.rollback(anchors[index] as Checkpoint),
      "rollback({ append })": (thread, index) =>
        thread.rollback(anchors[index] as Checkpoint, { append: { role: "user", text: "edited" } }),
      // The small thread holds 11 messages here (10 and the rollback's "edited"): these reads return 11, 11, 1
      // and 5 messages from it, 20, 20, 1 and 20 from the large one. rawReadRow shows what that alone costs.
      "view(last 20)": (thread) => thread.view({ maxMessages: 20 }),
      "messages(last 20)": (thread) => thread.messages({ last: 20 }),
      "message(id)": (thread, index) => thread.message?.(middles[index] as string) as Promise<unknown>,
      "messages({ before, limit: 20 })": (thread, index) =>
        thread.messages({ before: middles[index] as string, limit: 20 }),
    };
    const rows: string[][] = [];
    for (const [name, operation] of Object.entries(operations)) {
      // Reads leave the threads as they are and take microseconds: they warm up until V8 has optimised
      // them (about 1,000 calls), so the row compares optimised code on both threads. Writes grow the
      // threads, so they warm up briefly.
      const warmUp = READS.has(name) ? 2000 : Math.min(20, runs);
      const [small, large] = (await measureInTurns(
        threads.map((thread, index) => () => operation(thread, index)),
        runs,
        warmUp,
      )) as [number, number];
      rows.push([
        target.name,
        name,
        formatMicros(small),
        formatMicros(large),
        `${(large / small).toFixed(2)}×`,
      ]);
    }
    return rows;
  } finally {
    await store.close();
  }
}

/**
 * The raw limit for reading the newest 20: a slice of a plain array, copied as a store must copy. On 10
 * elements it copies 10, on 100,000 it copies 20, much as the stores' read rows do: its ratio (about 2x) is that
 * unequal work alone. Between 40 and 100,000 elements, both copying 20, it is 1.00-1.04x: a large live heap
 * costs V8 nothing measurable here.
 */
export async function rawReadRow(runs = 2000): Promise<string[]> {
  const arrays = SIZES.map((size) =>
    Array.from({ length: size }, (_, index) => ({
      id: `m${index}`,
      role: "user",
      createdAt: new Date().toISOString(),
      contents: [{ type: "text", text: `message ${index}: ${"lorem ipsum dolor sit amet ".repeat(6)}` }],
    })),
  );
  const [small, large] = (await measureInTurns(
    arrays.map(
      (messages) => async () => messages.slice(-20).map((message) => JSON.parse(JSON.stringify(message))),
    ),
    runs,
    200,
  )) as [number, number];
  return [
    "raw array",
    "slice + copy last 20",
    formatMicros(small),
    formatMicros(large),
    `${(large / small).toFixed(2)}×`,
  ];
}

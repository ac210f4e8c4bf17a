import type { Thread, ThreadStore } from "@skein/thread-core";
import { formatMicros, measure } from "./measure.js";

/** One store to scale-test: how to open it (a fresh, empty one) and how many timed runs it affords. */
export interface ScalingTarget {
  name: string;
  open: () => Promise<ThreadStore>;
  runs?: number;
}

const SIZES = [10, 100_000] as const;
const BATCH = 1000;

async function filledThread(store: ThreadStore, size: number): Promise<Thread> {
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

/** Each operation's median at 10 and at 100,000 messages, and the ratio (close to 1 means O(1)). */
export async function scalingRows(target: ScalingTarget): Promise<string[][]> {
  const runs = target.runs ?? 200;
  const results = new Map<string, number[]>();
  for (const size of SIZES) {
    const store = await target.open();
    const thread = await filledThread(store, size);
    const anchor = await thread.checkpoint("anchor");
    const operations: Record<string, () => Promise<unknown>> = {
      append: () => thread.append({ role: "user", text: "one more" }),
      fork: () => thread.fork(),
      checkpoint: () => thread.checkpoint(),
      rollback: () => thread.rollback(anchor),
      "view(last 20)": () => thread.view({ maxMessages: 20 }),
      "messages(last 20)": () => thread.messages({ last: 20 }),
    };
    for (const [name, operation] of Object.entries(operations)) {
      const { medianMicros } = await measure(operation, runs, Math.min(20, runs));
      results.set(name, [...(results.get(name) ?? []), medianMicros]);
    }
    await store.close();
  }
  return [...results.entries()].map(([name, [small, large]]) => [
    target.name,
    name,
    formatMicros(small as number),
    formatMicros(large as number),
    `${((large as number) / (small as number)).toFixed(2)}×`,
  ]);
}

/**
 * The raw limit for reading the newest 20: a slice of a plain array, copied as a store must copy. Its
 * ratio shows what a large live heap costs V8 itself, apart from any store.
 */
export async function rawReadRow(runs = 2000): Promise<string[]> {
  const medians: number[] = [];
  for (const size of SIZES) {
    const messages = Array.from({ length: size }, (_, index) => ({
      id: `m${index}`,
      role: "user",
      createdAt: new Date().toISOString(),
      contents: [{ type: "text", text: `message ${index}: ${"lorem ipsum dolor sit amet ".repeat(6)}` }],
    }));
    const { medianMicros } = await measure(
      async () => messages.slice(-20).map((message) => JSON.parse(JSON.stringify(message))),
      runs,
      200,
    );
    medians.push(medianMicros);
  }
  const [small, large] = medians as [number, number];
  return [
    "raw array",
    "slice + copy last 20",
    formatMicros(small),
    formatMicros(large),
    `${(large / small).toFixed(2)}×`,
  ];
}

import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { SkeinError, type ThreadStore } from "@skein/thread-core";

export interface FloorOptions {
  store: ThreadStore;
  threads: number;
  messagesPerThread: number;
  /** Appends in flight at once across threads, as the service's `concurrency` bounds its runs. */
  concurrency: number;
}

export interface FloorResult {
  messages: number;
  seconds: number;
  messagesPerSecond: number;
}

/**
 * The floor under the runtime row: the same messages appended straight to the store, each thread's in
 * order, every thread waiting at once and at most `concurrency` appends in flight, with no service in
 * between (no queue, lease, fence or record). Threads are created before the clock starts and deleted after.
 */
export async function storeAppendFloor(options: FloorOptions): Promise<FloorResult> {
  const { store, threads, messagesPerThread, concurrency } = options;
  const prefix = `floor-${randomBytes(4).toString("hex")}-`;
  const created = [];
  try {
    for (let index = 0; index < threads; index++)
      created.push(await store.create({ id: `${prefix}${index}` }));
    // Each thread appends its messages one after another; the gate lets `concurrency` threads append at once.
    let free = concurrency;
    const waiting: Array<() => void> = [];
    const acquire = async () => {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
    };
    const release = () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    };
    const started = performance.now();
    await Promise.all(
      created.map(async (thread) => {
        for (let index = 0; index < messagesPerThread; index++) {
          await acquire();
          try {
            await thread.append({ role: "user", text: `${index}` });
          } finally {
            release();
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sample = created[0];
    if (sample && (await sample.messages()).length !== messagesPerThread) {
      throw new SkeinError("the floor's appends did not all land.", { source: "bench" });
    }
    const messages = threads * messagesPerThread;
    return { messages, seconds, messagesPerSecond: messages / seconds };
  } finally {
    for (const thread of created) await store.delete(thread.id);
  }
}

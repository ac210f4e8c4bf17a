import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import {
  type Message,
  messageText,
  SkeinError,
  type ThreadRunner,
  type ThreadStore,
} from "@skein/thread-core";
import { configIdOf } from "./config-document.js";
import { leaseIdOf } from "./lease-document.js";
import { createThreadService } from "./thread-service.js";

export interface ThroughputOptions {
  store: ThreadStore;
  /** @default 1000 */
  threads?: number;
  /** @default 10 */
  messagesPerThread?: number;
  /** @default 64 */
  concurrency?: number;
  /** Deletes the threads and their leases afterwards. @default true */
  cleanUp?: boolean;
}

export interface ThroughputResult {
  threads: number;
  messagesPerThread: number;
  messages: number;
  /** From the first send to the last outcome; thread creation and the order check are not counted. */
  seconds: number;
  messagesPerSecond: number;
  /** Always true: a thread whose messages are out of order makes the bench throw. */
  orderVerified: true;
}

/** A runner that appends nothing: what is measured is the service and the store, not a model. */
const noopRunner: ThreadRunner = { specificationVersion: "v1", supports: () => true, run: async () => [] };

/**
 * The bench row "N threads × M messages with a no-op runner": sends every message at once, waits for all
 * outcomes, then checks that each thread holds exactly its messages in the order they were sent.
 * @example const row = await benchThroughput({ store: await openStore(process.env.REDIS_URL) });
 */
export async function benchThroughput(options: ThroughputOptions): Promise<ThroughputResult> {
  const threads = options.threads ?? 1000;
  const messagesPerThread = options.messagesPerThread ?? 10;
  const service = createThreadService({
    store: options.store,
    runner: noopRunner,
    concurrency: options.concurrency ?? 64,
  });
  const prefix = `bench-${randomBytes(4).toString("hex")}-`;
  const ids: string[] = [];
  try {
    for (let index = 0; index < threads; index++) {
      ids.push((await service.createThread({ id: `${prefix}${index}` })).threadId);
    }
    const started = performance.now();
    await Promise.all(
      ids.flatMap((threadId) =>
        Array.from({ length: messagesPerThread }, (_, index) => service.send(threadId, `${index}`)),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    for (const threadId of ids)
      verifyOrder(threadId, await (await options.store.get(threadId)).messages(), messagesPerThread);
    const messages = threads * messagesPerThread;
    return {
      threads,
      messagesPerThread,
      messages,
      seconds,
      messagesPerSecond: messages / seconds,
      orderVerified: true,
    };
  } finally {
    await service.close();
    if (options.cleanUp ?? true) {
      for (const threadId of ids) {
        await options.store.delete(threadId);
        await options.store.delete(leaseIdOf(threadId));
        await options.store.delete(configIdOf(threadId));
      }
    }
  }
}

function verifyOrder(threadId: string, messages: Message[], expected: number): void {
  const texts = messages.map(messageText);
  const wanted = Array.from({ length: expected }, (_, index) => `${index}`);
  if (texts.join(",") !== wanted.join(",")) {
    throw new SkeinError(
      `Thread ${JSON.stringify(threadId)} holds ${JSON.stringify(texts)}, not ${JSON.stringify(wanted)}: per-thread order was broken.`,
      { source: "thread-service" },
    );
  }
}

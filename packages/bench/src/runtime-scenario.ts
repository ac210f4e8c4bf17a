import { openStore } from "@skein/thread-core";
// Not exported by thread-service: its bench helper, read from source (bench is private and never packed).
import { benchThroughput } from "../../thread-service/src/throughput-bench.js";
import { median } from "./measure.js";
import { storeAppendFloor } from "./runtime-floor.js";

export interface RuntimeRow {
  store: string;
  /** "thread-service, no-op runner" or the store's own append alone. */
  subject: string;
  threads: number;
  messages: number;
  concurrency: number;
  /** Of the median round. */
  seconds: number;
  /** Median over the rounds, and the slowest and fastest round. */
  messagesPerSecond: number;
  spread: [number, number];
  /** Time per message over the store's own append's (1 for the floor row): the runtime's overhead per message. */
  ratio: number;
  orderVerified: boolean;
}

export interface RuntimeOptions {
  threads?: number;
  messagesPerThread?: number;
  concurrency?: number;
  rounds?: number;
}

export const SERVICE_SUBJECT = "thread-service, no-op runner";
export const FLOOR_SUBJECT = "store append alone (same messages, same concurrency)";

/**
 * thread-service with a no-op runner on many threads at once (every message sent at once, per-thread order
 * verified), beside the store's own appends of the same messages at the same concurrency. The two run in
 * turns, alternating which goes first, and each rate is the median of `rounds`.
 */
export async function runtimeRows(
  redisUrl: string | undefined,
  options: RuntimeOptions = {},
): Promise<RuntimeRow[]> {
  const threads = options.threads ?? 1000;
  const messagesPerThread = options.messagesPerThread ?? 10;
  const concurrency = options.concurrency ?? 64;
  const rounds = options.rounds ?? 3;
  const targets: Array<[string, string]> = [["memory", "memory:"]];
  if (redisUrl) targets.push(["redis", redisUrl]);
  const rows: RuntimeRow[] = [];
  for (const [name, url] of targets) {
    process.stderr.write(`  runtime: ${name}…\n`);
    const store = await openStore(url);
    try {
      const service: number[] = [];
      const floor: number[] = [];
      const runService = async () =>
        service.push(
          (await benchThroughput({ store, threads, messagesPerThread, concurrency })).messagesPerSecond,
        );
      const runFloor = async () =>
        floor.push(
          (await storeAppendFloor({ store, threads, messagesPerThread, concurrency })).messagesPerSecond,
        );
      // One untimed round of each warms the code paths and the server.
      await benchThroughput({ store, threads: Math.min(threads, 100), messagesPerThread, concurrency });
      await storeAppendFloor({ store, threads: Math.min(threads, 100), messagesPerThread, concurrency });
      for (let round = 0; round < rounds; round++) {
        if (round % 2) {
          await runFloor();
          await runService();
        } else {
          await runService();
          await runFloor();
        }
      }
      const messages = threads * messagesPerThread;
      const floorRate = median(floor);
      const row = (subject: string, rates: number[], orderVerified: boolean): RuntimeRow => {
        const rate = median(rates);
        return {
          store: name,
          subject,
          threads,
          messages,
          concurrency,
          seconds: messages / rate,
          messagesPerSecond: rate,
          spread: [Math.min(...rates), Math.max(...rates)],
          ratio: floorRate / rate,
          orderVerified,
        };
      };
      // benchThroughput throws when a thread's order is broken, so a row that exists is verified.
      rows.push(row(FLOOR_SUBJECT, floor, true), row(SERVICE_SUBJECT, service, true));
    } finally {
      await store.close();
    }
  }
  return rows;
}

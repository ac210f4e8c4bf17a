import { openStore } from "@skein/thread-core";
import { benchThroughput } from "@skein/thread-service";

export interface RuntimeRow {
  store: string;
  messages: number;
  seconds: number;
  messagesPerSecond: number;
  orderVerified: boolean;
}

/** thread-service with a no-op runner: 1,000 threads × 10 messages, per-thread order verified. */
export async function runtimeRows(redisUrl: string | undefined, threads = 1000): Promise<RuntimeRow[]> {
  const targets: Array<[string, string]> = [["memory", "memory:"]];
  if (redisUrl) targets.push(["redis", redisUrl]);
  const rows: RuntimeRow[] = [];
  for (const [name, url] of targets) {
    process.stderr.write(`  runtime: ${name}…\n`);
    const store = await openStore(url);
    try {
      const result = await benchThroughput({ store, threads, messagesPerThread: 10 });
      rows.push({ store: name, ...result });
    } finally {
      await store.close();
    }
  }
  return rows;
}

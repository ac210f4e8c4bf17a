// Where the time of the Redis concurrency rows goes: the Node process's CPU per append (process.cpuUsage over
// whole rounds) and the server's time per EVALSHA (INFO commandstats), for skein and for the raw atomic Lua
// append, 50 threads at once, in turns. Run: node --import tsx src/redis-concurrency-profile.ts [redis URL]
// (without a URL it starts a throw-away redis-server; with one, it resets that server's command statistics).
import { createClient } from "redis";
import { median, printTable } from "./measure.js";
import {
  APPENDS_PER_THREAD,
  CONCURRENT_THREADS,
  type ConcurrencySubject,
  concurrentWriters,
} from "./redis-concurrency.js";
import { withRedis } from "./redis-server.js";

const ROUNDS = 8;

/** Microseconds the server spent per EVALSHA since the last reset. */
async function serverMicrosPerScript(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const stats = await client.info("commandstats");
    const line = stats.split("\n").find((text) => text.startsWith("cmdstat_evalsha:"));
    return Number(/usec_per_call=([\d.]+)/.exec(line ?? "")?.[1] ?? Number.NaN);
  } finally {
    await client.quit();
  }
}

async function resetStatistics(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  await client.configResetStat();
  await client.quit();
}

async function profile(url: string): Promise<void> {
  const writers = await concurrentWriters(url, CONCURRENT_THREADS, APPENDS_PER_THREAD);
  const total = CONCURRENT_THREADS * APPENDS_PER_THREAD;
  const cpu: Record<ConcurrencySubject, number[]> = { skein: [], atomic: [] };
  const rate: Record<ConcurrencySubject, number[]> = { skein: [], atomic: [] };
  const server: Record<ConcurrencySubject, number[]> = { skein: [], atomic: [] };
  try {
    for (let round = -1; round < ROUNDS; round++) {
      const order: ConcurrencySubject[] = round % 2 ? ["atomic", "skein"] : ["skein", "atomic"];
      for (const subject of order) {
        const prepared = await writers.prepare(subject);
        await resetStatistics(url);
        const cpuStart = process.cpuUsage();
        const start = process.hrtime.bigint();
        await prepared.run();
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const used = process.cpuUsage(cpuStart);
        const serverMicros = await serverMicrosPerScript(url);
        await prepared.cleanup();
        if (round < 0) continue;
        cpu[subject].push((used.user + used.system) / total);
        rate[subject].push(total / seconds);
        server[subject].push(serverMicros);
      }
    }
  } finally {
    await writers.close();
  }
  printTable(
    ["subject", "client CPU µs per append", "server µs per EVALSHA", "appends/s"],
    (["atomic", "skein"] as const).map((subject) => [
      subject === "skein" ? "skein redis store" : "raw atomic append (Lua)",
      median(cpu[subject]).toFixed(1),
      median(server[subject]).toFixed(1),
      median(rate[subject]).toFixed(0),
    ]),
  );
}

const url = process.argv[2];
if (url) await profile(url);
else
  await withRedis(async (started) => {
    if (started) await profile(started);
  });

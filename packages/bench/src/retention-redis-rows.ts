import { LocalStore } from "@skein/thread-core/driver";
import { countedReads } from "./counted-reads.js";
import { redisFactory } from "./fresh-stores.js";
import type { RetentionRow } from "./retention-row.js";

const HOUR = 3_600_000;
const FILL_CONCURRENCY = 200;

/** One sweep to measure: how many threads it finds expired, and whether the expiry index is hidden. */
export interface PlannedSweep {
  expired: number;
  scan: boolean;
}

/**
 * The Redis store's rows: one key prefix of `threads` threads, filled once, holding a group of threads past
 * their own `expiresAt` for each sweep, spread through the store; group g expires at start + (2g + 1) hours
 * and its sweep runs at start + (2g + 2) hours, so it finds that group only. After each sweep as many new
 * threads are created as it deleted, so every sweep finds exactly `threads` threads. With `scan`, the driver
 * hides its expiry index: the fallback of a store without one, a read of each record of the scope.
 */
export async function redisSweeps(
  url: string,
  threads: number,
  sweeps: readonly PlannedSweep[],
): Promise<RetentionRow[]> {
  const fresh = await redisFactory("redis", url, 1).fresh();
  const opened = fresh.store as LocalStore;
  const start = Date.now();
  const groupOf = new Map<number, number>();
  for (const [group, sweep] of sweeps.entries()) {
    const step = Math.floor(threads / sweep.expired);
    // Offset by the group's number, so no thread is in two groups while each is at most a tenth of the store.
    for (let index = 0; index < sweep.expired; index++) groupOf.set(index * step + group, group);
  }
  await fill(threads, (index) => {
    const group = groupOf.get(index);
    const expiresAt = group === undefined ? undefined : start + (2 * group + 1) * HOUR;
    return opened.create({ id: `t-${index}`, ...(expiresAt === undefined ? {} : { expiresAt }) });
  });

  const rows: RetentionRow[] = [];
  try {
    for (const [group, sweep] of sweeps.entries()) {
      const clock = { now: start + (2 * group + 2) * HOUR };
      const { driver, reads } = countedReads(opened.driver, sweep.scan);
      const store = new LocalStore({
        driver,
        registry: opened.registry,
        url: opened.url,
        retention: { idleFor: "30d", now: () => clock.now },
      });
      // The catalogue's version mark is checked once per process: before the clock starts.
      await store.list({ limit: 1 });
      reads.count = 0;
      const began = process.hrtime.bigint();
      const report = await store.sweep({ batchSize: 500 });
      const milliseconds = Number(process.hrtime.bigint() - began) / 1e6;
      rows.push({
        store: sweep.scan ? "redis, no expiry index (the fallback)" : "redis",
        threads,
        expired: sweep.expired,
        milliseconds,
        recordsRead: reads.count,
        deleted: report.deleted,
      });
      await fill(report.deleted, (index) => opened.create({ id: `r${group}-${index}` }));
    }
  } finally {
    await fresh.dispose();
  }
  return rows;
}

async function fill(count: number, create: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: FILL_CONCURRENCY }, async () => {
      while (next < count) await create(next++);
    }),
  );
}

import { fsStore } from "@skein/adapter-fs";
import { LocalStore } from "@skein/thread-core/driver";
import { countedReads } from "./counted-reads.js";
import type { RetentionRow } from "./retention-row.js";
import { temporaryDirectory } from "./temporary-directory.js";

const HOUR = 3_600_000;
const FILL_CONCURRENCY = 100;

/** One sweep to measure on the fs store: how many threads expire, and whether the expiry index is hidden. */
interface PlannedSweep {
  expired: number;
  scan: boolean;
}

/**
 * The fs store's rows: one store of `threads` threads, built once through the public API (`create`,
 * durability "batch" for the build only), holding a group of threads past their own `expiresAt` for each
 * sweep, spread through the store and each expiring an hour after the previous group. Each sweep runs in a
 * store opened afresh (as `skein sweep` would be, default durability "fsync"), once the clock passed its
 * group's expiry and before the next group's; after it, as many new threads as it deleted are created, so
 * every sweep finds exactly `threads` threads. With `scan`, the driver hides its expiry index: the fallback
 * every store without one uses, reading each record of the scope once.
 */
export async function fsSweeps(threads: number, sweeps: readonly PlannedSweep[]): Promise<RetentionRow[]> {
  const directory = temporaryDirectory();
  const start = Date.now();
  // Group g expires at start + (2g + 1) hours; sweep g runs at start + (2g + 2) hours.
  const expiryOf = (index: number): number | undefined => {
    let offset = 0;
    for (const [group, sweep] of sweeps.entries()) {
      const step = Math.floor(threads / sweep.expired);
      // Offsets apart, so no thread is in two groups while the groups are at most a tenth of the store each.
      if (index % step === offset && Math.floor(index / step) < sweep.expired)
        return start + (2 * group + 1) * HOUR;
      offset++;
    }
    return undefined;
  };
  const builder = fsStore({ directory, durability: "batch" });
  await fill(threads, (index) => {
    const expiresAt = expiryOf(index);
    return builder.create({ id: `t-${index}`, ...(expiresAt === undefined ? {} : { expiresAt }) });
  });
  await builder.close();

  const rows: RetentionRow[] = [];
  for (const [group, sweep] of sweeps.entries()) {
    const clock = { now: start + (2 * group + 2) * HOUR };
    const { store, reads } = countedStore(directory, clock, sweep.scan);
    // Loads the catalogue (its snapshot and the journal's tail, no record read) before the clock starts.
    await store.list({ limit: 1 });
    reads.count = 0;
    const began = process.hrtime.bigint();
    const report = await store.sweep({ batchSize: 500 });
    const milliseconds = Number(process.hrtime.bigint() - began) / 1e6;
    rows.push({
      store: sweep.scan ? "fs, no expiry index (the fallback)" : "fs",
      threads,
      expired: sweep.expired,
      milliseconds,
      recordsRead: reads.count,
      deleted: report.deleted,
    });
    await store.close();
    if (group < sweeps.length - 1) {
      const refill = fsStore({ directory, durability: "batch" });
      await fill(report.deleted, (index) => refill.create({ id: `r${group}-${index}` }));
      await refill.close();
    }
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

/** A store on `directory` whose driver counts the records it hands up (index, catalogue and scan reads). */
function countedStore(directory: string, clock: { now: number }, scan: boolean) {
  const opened = fsStore({ directory });
  const { driver, reads } = countedReads(opened.driver, scan);
  const store = new LocalStore({
    driver,
    registry: opened.registry,
    url: opened.url,
    retention: { idleFor: "30d", now: () => clock.now },
  });
  return { store, reads };
}

import { rm } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { openStore, type ThreadStore } from "@skein/thread-core";
import type { LocalStore } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { placeOf } from "../src/catalogue/catalogue-place.js";
import { type FsLogDriver, fsAdapter } from "../src/index.js";

const HOUR = 3_600_000;

/** A store on `directory` whose retention clock the test moves, and the fs driver under it. */
async function openClocked(directory: string, clock: { now: number }) {
  const store = (await openStore(`file:${directory}`, {
    adapters: [fsAdapter],
    retention: { now: () => clock.now },
  })) as LocalStore;
  return { store, driver: store.driver as FsLogDriver };
}

/** Counts what the driver hands a sweep: ids listed (a scan), records read, records from the expiry index. */
function countReads(driver: FsLogDriver) {
  const reads = { listed: 0, recordFiles: 0, expiring: 0 };
  const list = driver.list.bind(driver);
  // Counted where the driver has an expiry index (without one, a sweep lists and reads every record).
  const expiring = driver.expiring?.bind(driver);
  const readNow = driver.records.readNow.bind(driver.records);
  driver.list = async (options) => {
    const items = await list(options);
    reads.listed += items.length;
    return items;
  };
  if (expiring)
    driver.expiring = async (query) => {
      const records = await expiring(query);
      reads.expiring += records.length;
      return records;
    };
  driver.records.readNow = (id: string) => {
    reads.recordFiles++;
    return readNow(id);
  };
  const reset = () => Object.assign(reads, { listed: 0, recordFiles: 0, expiring: 0 });
  return { reads, reset };
}

async function fill(store: ThreadStore, count: number, prefix: string, expiresAt?: number) {
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, index) =>
        store.create({ id: `${prefix}-${start + index}`, ...(expiresAt === undefined ? {} : { expiresAt }) }),
      ),
    );
  }
}

async function storeDirectory(): Promise<string> {
  return join(await temporaryDirectory(), "store");
}

describe("the fs expiry index (LogDriver.expiring)", () => {
  it("a sweep reads the expired threads through the catalogue, never every record", async () => {
    const clock = { now: Date.now() };
    const { store, driver } = await openClocked(await storeDirectory(), clock);
    await fill(store, 600, "live");
    await fill(store, 30, "due", clock.now + HOUR);
    await fill(store, 20, "later", clock.now + 10 * HOUR);
    await store.scope("tenant").create({ id: "due-in-scope", expiresAt: clock.now + HOUR });
    expect(await store.count()).toBe(650); // this process loads the catalogue (every record read once)
    clock.now += 2 * HOUR;
    const { reads, reset } = countReads(driver);

    // count leaves out the threads past their own expiresAt before any sweep, reading only them.
    expect(await store.count()).toBe(620);
    expect(reads.listed).toBe(0);
    // Each thread read is two file reads (its record, then checked against its head's last commit).
    expect(reads.recordFiles).toBeLessThanOrEqual(2 * 31);

    reset();
    expect(await store.sweep({ batchSize: 10 })).toEqual({ examined: 30, deleted: 30, skipped: 0 });
    expect(reads.listed).toBe(0);
    expect(reads.expiring).toBe(30);
    // Each expired thread is read by the index walk and again by its fenced delete (a few file reads each),
    // and the first thread not due yet ends the walk: O(expired). A scan reads all 651 records, twice each.
    expect(reads.recordFiles).toBeLessThanOrEqual(10 * 31);
    expect(await store.count()).toBe(620);
    expect((await store.scope("tenant").sweep()).deleted).toBe(1);
    expect((await store.sweep()).deleted).toBe(0);
    await store.close();
  });

  it("finds an expiry another process set, and one kept in the snapshot or rebuilt after a restart", async () => {
    const directory = await storeDirectory();
    const clock = { now: Date.now() };
    const first = await openClocked(directory, clock);
    await fill(first.store, 40, "live");
    expect(await first.store.count()).toBe(40); // loaded, snapshot written
    const other = await openClocked(directory, clock);
    await (await other.store.get("live-3")).update({ expiresAt: clock.now + HOUR });
    await other.store.create({ id: "due", expiresAt: clock.now + HOUR });
    await other.store.close();
    clock.now += 2 * HOUR;
    expect(await first.store.count()).toBe(39);
    const counted = countReads(first.driver);
    expect(await first.store.sweep()).toEqual({ examined: 2, deleted: 2, skipped: 0 });
    expect(counted.reads.listed).toBe(0);
    await fill(first.store, 3, "due-next", clock.now + HOUR);
    await first.store.close();

    // A new process loads the expiry from the snapshot and the journal's tail.
    clock.now += 2 * HOUR;
    const reopened = await openClocked(directory, clock);
    const afterReopen = countReads(reopened.driver);
    expect(await reopened.store.sweep()).toEqual({ examined: 3, deleted: 3, skipped: 0 });
    expect(afterReopen.reads.listed).toBe(0);
    await fill(reopened.store, 2, "due-last", clock.now + HOUR);
    await reopened.store.close();

    // Without the catalogue's files (a machine restart is handled the same way: rebuilt from the records).
    await rm(join(directory, "catalogue"), { recursive: true });
    clock.now += 2 * HOUR;
    const rebuilt = await openClocked(directory, clock);
    expect(await rebuilt.store.count()).toBe(39);
    const afterRebuild = countReads(rebuilt.driver);
    expect(await rebuilt.store.sweep()).toEqual({ examined: 2, deleted: 2, skipped: 0 });
    expect(afterRebuild.reads.listed).toBe(0);
    expect((await rebuilt.store.list({ limit: 100 })).items).toHaveLength(39);
    await rebuilt.store.close();
  });

  it("a stale entry (an expiry announced that never landed, or moved later) costs a read, never a delete", async () => {
    const clock = { now: Date.now() };
    const { store, driver } = await openClocked(await storeDirectory(), clock);
    const kept = await store.create({ id: "moved-later", expiresAt: clock.now + HOUR });
    await kept.update({ expiresAt: clock.now + 10 * HOUR });
    const untouched = await store.create({ id: "announced-only" });
    await untouched.append({ role: "user", text: "still here" });
    const record = await driver.read("announced-only");
    if (!record) throw new Error("the record is missing");
    // A writer that announced an expiry and was killed before its change landed.
    driver.listIndex.announce(
      "announced-only",
      { ...placeOf(record), expires: new Date(clock.now).toISOString() },
      placeOf(record),
    );
    clock.now += 2 * HOUR;
    const counted = countReads(driver);
    expect(await store.count()).toBe(2);
    expect(await store.sweep()).toEqual({ examined: 0, deleted: 0, skipped: 0 });
    expect(counted.reads.expiring).toBe(0);
    expect((await store.get("announced-only")).id).toBe("announced-only");
    expect(await (await store.get("announced-only")).messages()).toHaveLength(1);
    expect((await store.get("moved-later")).id).toBe("moved-later");
    clock.now += 10 * HOUR;
    expect(await store.sweep()).toEqual({ examined: 1, deleted: 1, skipped: 0 });
    await store.close();
  });
});

import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { InvalidOptionError, ThreadNotFoundError, UnsupportedOperationError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver } from "../local/log-driver.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { openStore } from "../store/open-store.js";
import type { ThreadStore } from "../store/store.js";
import { streamsOf } from "../streaming/stream-entries.js";

const HOUR = 3_600_000;

/** How many records each kind of read hands a sweep: what its cost is counted in. */
function countedDriver(driver: LogDriver) {
  const reads = { listed: 0, read: 0, expiring: 0, catalogue: 0 };
  // Own properties over the driver's methods: the driver itself, its reads counted.
  const counted = driver;
  const list = driver.list.bind(driver);
  const read = driver.read.bind(driver);
  const expiring = driver.expiring?.bind(driver);
  const catalogue = driver.catalogue?.bind(driver);
  counted.list = async (options) => {
    const items = await list(options);
    reads.listed += items.length;
    return items;
  };
  counted.read = async (id, known) => {
    reads.read++;
    return read(id, known);
  };
  counted.expiring = async (query) => {
    const records = (await expiring?.(query)) ?? [];
    reads.expiring += records.length;
    return records;
  };
  counted.catalogue = async (query) => {
    const records = (await catalogue?.(query)) ?? [];
    reads.catalogue += records.length;
    return records;
  };
  return { counted, reads };
}

async function fill(store: ThreadStore, count: number, prefix: string, expiresAt?: number) {
  for (let start = 0; start < count; start += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - start) }, (_, index) =>
        store.create({ id: `${prefix}-${start + index}`, ...(expiresAt === undefined ? {} : { expiresAt }) }),
      ),
    );
  }
}

describe("store.sweep", () => {
  it("reads O(expired) records through the memory store's expiry index and catalogue, none by scan", async () => {
    const clock = { now: Date.now() };
    const { counted, reads } = countedDriver(new MemoryLogDriver());
    const store = new LocalStore({
      driver: counted,
      registry: createRegistry(),
      url: "memory:",
      retention: { idleFor: "1d", now: () => clock.now },
    });
    await fill(store, 2_000, "live");
    await fill(store, 30, "due", clock.now + HOUR);
    clock.now += 2 * HOUR;
    Object.assign(reads, { listed: 0, read: 0, expiring: 0, catalogue: 0 });
    const report = await store.sweep({ batchSize: 10 });
    expect(report).toEqual({ examined: 30, deleted: 30, skipped: 0 });
    // The 30 expired, and the first of the catalogue's oldest that is not idle: never the 2,000 live ones.
    expect(reads.listed).toBe(0);
    expect(reads.expiring).toBe(30);
    expect(reads.catalogue).toBeLessThanOrEqual(10);
    expect(await store.count()).toBe(2_000);
  });

  it("without an expiry index, finds threads past their own expiresAt by reading every record", async () => {
    const clock = { now: Date.now() };
    const { counted, reads } = countedDriver(new MemoryLogDriver());
    // A driver that keeps no index by expiry: the documented O(store) fallback.
    counted.expiring = undefined;
    const store = new LocalStore({
      driver: counted,
      registry: createRegistry(),
      url: "memory:",
      retention: { now: () => clock.now },
    });
    await fill(store, 300, "live");
    await fill(store, 5, "due", clock.now + HOUR);
    clock.now += 2 * HOUR;
    Object.assign(reads, { listed: 0, read: 0, expiring: 0, catalogue: 0 });
    expect((await store.sweep()).deleted).toBe(5);
    expect(reads.listed).toBe(305);
  });

  it("an abort stops it between batches; the next sweep finishes the rest", async () => {
    const clock = { now: Date.now() };
    const store = await openStore("memory:", { retention: { maxAge: "1h", now: () => clock.now } });
    await fill(store, 50, "old");
    clock.now += 2 * HOUR;
    const controller = new AbortController();
    const stopped = await store
      .sweep({
        batchSize: 10,
        signal: controller.signal,
        onProgress: (progress) => {
          if (progress.deleted >= 20) controller.abort();
        },
      })
      .catch((error: unknown) => error);
    expect((stopped as Error).name).toBe("AbortError");
    const left = (await store.scope("none").list()).items.length + (await store.count());
    expect(left).toBe(0); // hidden from readers all along
    expect((await store.sweep()).deleted).toBe(30);
  });

  it("openStore refuses a malformed policy before opening, and a store that cannot expire", async () => {
    await expect(openStore("memory:", { retention: { idleFor: "30x" } as never })).rejects.toBeInstanceOf(
      InvalidOptionError,
    );
    await expect(openStore("memory:", { retention: { maxAge: -1 } })).rejects.toThrow(/retention.maxAge/);
    const plain = {
      specificationVersion: "v1" as const,
      packageName: "test-plain-store",
      schemes: ["plainstore"],
      types: [],
      openStore: async () => ({ specificationVersion: "v1", close: async () => {} }) as never,
    };
    await expect(
      openStore("plainstore:x", { adapters: [plain], retention: { idleFor: "1d" } }),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
  });
});

describe("store.sweep of a thread with a reply left streaming", () => {
  it("drops the reply's segment with the thread, as delete does", async () => {
    const clock = { now: Date.now() };
    const driver = new MemoryLogDriver();
    const store = new LocalStore({
      driver,
      registry: createRegistry(),
      url: "memory:",
      retention: { idleFor: "1h", now: () => clock.now },
    });
    const thread = (await store.create({ id: "abandoned" })) as LogThread;
    // A writer that stops writing (its process died): the reply's segment is named only in the record's context.
    const reply = await thread.beginMessage({
      role: "assistant",
      flushMs: 60_000,
      maxBatchBytes: 1,
      leaseMs: 3_600_000,
    });
    await reply.write("half an answer");
    const record = await driver.read("abandoned");
    const [stream] = record?.kind === "log" ? streamsOf(record.context) : [];
    expect(stream && (await driver.segment(stream.segment))).toBeDefined();
    clock.now += 2 * HOUR;
    expect(await store.sweep()).toMatchObject({ deleted: 1 });
    expect(await driver.read("abandoned")).toBeUndefined();
    expect(await driver.segment(stream?.segment as string)).toBeUndefined();
    await reply.fail(new Error("gone")).catch(() => undefined);
  });

  it("refuses a sealed export of an expired thread as it refuses a plain one", async () => {
    const clock = { now: Date.now() };
    const store = await openStore("memory:", {
      encryption: { keys: { k1: new Uint8Array(32).fill(7) }, current: "k1" },
      retention: { idleFor: "1h", now: () => clock.now },
    });
    await store.create({ id: "old" });
    expect(await store.export("old", { encrypted: true })).toBeDefined();
    clock.now += 2 * HOUR;
    await expect(store.export("old")).rejects.toThrow(ThreadNotFoundError);
    await expect(store.export("old", { encrypted: true })).rejects.toThrow(ThreadNotFoundError);
    await store.close();
  });
});

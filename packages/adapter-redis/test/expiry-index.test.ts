import type { ThreadStore } from "@skein/thread-core";
import type { LocalStore, LogDriver } from "@skein/thread-core/driver";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import type { RedisLogDriver } from "../src/redis-log-driver.js";
import {
  clusterUrl,
  connectCluster,
  connectSingle,
  deleteKeys,
  singleUrl,
  uniquePrefix,
} from "./redis-nodes.js";

const HOUR = 3_600_000;
const PAST = "2020-01-01T00:00:00.000Z";
/** The start of the expiry members in a scope's catalogue order set (catalogue-members.ts). */
const EXPIRY_MEMBERS = "*\u0000e\u0000";

type Reads = { listed: number; expiring: number; catalogue: number };

/** Counts the records each kind of driver read hands a sweep (own properties over the driver's methods). */
function countReads(driver: LogDriver): Reads {
  const reads: Reads = { listed: 0, expiring: 0, catalogue: 0 };
  const counted = driver as unknown as Record<string, unknown>;
  for (const [name, tally] of [
    ["list", "listed"],
    ["expiring", "expiring"],
    ["catalogue", "catalogue"],
  ] as const) {
    const method = counted[name] as ((query: unknown) => Promise<unknown[]>) | undefined;
    // A driver without the method stays without it: the sweep's fallback is what is measured then.
    if (typeof method !== "function") continue;
    counted[name] = async (query: unknown) => {
      const found = await method.call(driver, query);
      reads[tally] += found.length;
      return found;
    };
  }
  return reads;
}

async function fill(store: ThreadStore, count: number, prefix: string, expiresAt?: number | string) {
  for (let start = 0; start < count; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, (_, index) =>
        store.create({ id: `${prefix}-${start + index}`, ...(expiresAt === undefined ? {} : { expiresAt }) }),
      ),
    );
  }
}

/** Runs `command` on the key's node. */
function send(driver: RedisLogDriver, key: string, args: string[]): Promise<unknown> {
  return driver.connection.command(key, args);
}

describe.each([
  ["a single server", connectSingle, singleUrl],
  ["Redis Cluster", connectCluster, clusterUrl],
])("the expiry index on %s", (_name, connect, url) => {
  const prefixes: string[] = [];
  const clients: Array<{ close(): Promise<unknown> }> = [];
  afterAll(async () => {
    await Promise.all(prefixes.map((prefix) => deleteKeys(url(), prefix)));
    await Promise.all(clients.map((client) => client.close()));
  });

  async function open(name: string, prefix = uniquePrefix(name)) {
    prefixes.push(prefix);
    const client = await connect();
    clients.push(client);
    const store = redisStore({ client, prefix }) as LocalStore;
    return { store, driver: store.driver as RedisLogDriver, prefix };
  }

  it("a sweep reads the expired threads through the index, never every record", async () => {
    const { store, driver } = await open("expiry-reads");
    const clock = { now: Date.now() };
    store.useRetention({ idleFor: "1d", now: () => clock.now });
    await fill(store, 300, "live");
    await fill(store, 20, "due", clock.now + HOUR);
    await store.scope("tenant").create({ id: "scoped-due", expiresAt: clock.now + HOUR });
    clock.now += 2 * HOUR;
    const reads = countReads(driver);
    expect(await store.sweep({ batchSize: 10 })).toEqual({ examined: 20, deleted: 20, skipped: 0 });
    // The 20 expired, and the catalogue's oldest by last change up to the first that is not idle.
    expect(reads).toEqual({ listed: 0, expiring: 20, catalogue: expect.any(Number) });
    expect(reads.catalogue).toBeLessThanOrEqual(10);
    expect(await store.count()).toBe(300);
    expect((await store.scope("tenant").sweep()).deleted).toBe(1);
    await store.close();
  });

  it("count leaves out threads past their own expiresAt before any sweep", async () => {
    const { store } = await open("expiry-count");
    await fill(store, 5, "live");
    await store.create({ id: "gone-a", expiresAt: PAST, owner: "u-7" });
    await store.create({ id: "gone-b", owner: "u-7" });
    await store.create({ id: "kept", owner: "u-7", expiresAt: Date.now() + HOUR });
    expect(await store.count()).toBe(7);
    expect(await store.count({ owner: "u-7" })).toBe(2);
    // Set after creation: the commit that changes the context moves the thread's expiry member.
    await (await store.get("gone-b")).update({ expiresAt: PAST });
    expect(await store.count({ owner: "u-7" })).toBe(1);
    await store.close();
  });

  it("follows expiresAt as it changes, and a stale member costs only a re-check", async () => {
    const { store, driver } = await open("expiry-moves");
    const clock = { now: Date.now() };
    store.useRetention({ now: () => clock.now });
    const moved = await store.create({ id: "moved", expiresAt: clock.now + HOUR });
    const later = new Date(clock.now + 3 * HOUR).toISOString();
    await moved.update({ expiresAt: later });
    const cleared = await store.create({ id: "cleared", expiresAt: clock.now + HOUR });
    await cleared.update({ expiresAt: null });
    await store.create({ id: "doomed", expiresAt: clock.now + HOUR });
    clock.now += 2 * HOUR;
    // Members no entry holds (a writer without the index, or a crash between steps on Cluster): one says a
    // live thread expired, one names a thread that is gone.
    const order = driver.layout.catalogue("").order;
    await send(driver, order, ["ZADD", order, "0", `${EXPIRY_MEMBERS}2019\u0000\u0001moved`]);
    await send(driver, order, ["ZADD", order, "0", `${EXPIRY_MEMBERS}2019\u0000\u0001never-was`]);
    const reads = countReads(driver);
    expect(await store.sweep()).toEqual({ examined: 1, deleted: 1, skipped: 0 });
    expect(reads.listed).toBe(0);
    expect((await store.list()).items.map((item) => item.id).sort()).toEqual(["cleared", "moved"]);
    const members = (await send(driver, order, ["ZRANGE", order, "0", "-1"])) as string[];
    // The stale members were removed as the sweep met them; the live thread's own stays.
    expect(members.filter((member) => member.startsWith(EXPIRY_MEMBERS))).toEqual([
      `${EXPIRY_MEMBERS}${later}\u0000\u0001moved`,
    ]);
    await store.close();
  });

  it("indexes the expiry of threads written before the index existed", async () => {
    const prefix = uniquePrefix("expiry-backfill");
    const writer = await open("expiry-backfill", prefix);
    await fill(writer.store, 50, "live");
    await fill(writer.store, 5, "due", PAST);
    await writer.store.list({ limit: 1 });
    // What a version without the index left: entries of four fields, no expiry members, mark "1".
    const { layout } = writer.driver;
    const { entries, order } = layout.catalogue("");
    const members = (await send(writer.driver, order, ["ZRANGE", order, "0", "-1"])) as string[];
    const expiry = members.filter((member) => member.startsWith(EXPIRY_MEMBERS));
    if (expiry.length > 0) await send(writer.driver, order, ["ZREM", order, ...expiry]);
    const stored = (await send(writer.driver, entries, ["HGETALL", entries])) as
      | string[]
      | Record<string, string>;
    const pairs = Array.isArray(stored) ? stored : Object.entries(stored).flat();
    for (let index = 0; index < pairs.length; index += 2) {
      const entry = JSON.parse(pairs[index + 1] as string) as unknown[];
      const old = JSON.stringify(entry.slice(0, 4));
      await send(writer.driver, entries, ["HSET", entries, pairs[index] as string, old]);
    }
    await send(writer.driver, layout.catalogueVersion, ["SET", layout.catalogueVersion, "1"]);
    await writer.store.close();

    const { store, driver } = await open("expiry-backfill", prefix);
    const reads = countReads(driver);
    expect(await store.sweep()).toEqual({ examined: 5, deleted: 5, skipped: 0 });
    expect(reads).toEqual({ listed: 0, expiring: 5, catalogue: 0 });
    expect(await store.count()).toBe(50);
    await store.close();
  });
});

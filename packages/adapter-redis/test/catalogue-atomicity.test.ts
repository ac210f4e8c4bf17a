import type { ListOptions, LogThread, Thread, ThreadStore, ThreadSummary } from "@skein/thread-core";
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

const THREADS = 12;
const ROUNDS = 15;
const OWNERS = ["u-1", "u-2", "u-3"];
const ORDERS: ListOptions[] = [
  { order: "updated" },
  { order: "updated", direction: "asc" },
  { order: "created" },
  { order: "created", direction: "asc" },
  { order: "id" },
  { order: "id", direction: "desc" },
];

/** Every page of a listing, 4 at a time. */
async function walk(store: ThreadStore, options: ListOptions): Promise<ThreadSummary[]> {
  const items: ThreadSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ ...options, limit: 4, ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return items;
}

/** What a listing must give, from the threads as their stores read them now. */
function expected(threads: ThreadSummary[], options: ListOptions): string[] {
  const order = options.order ?? "id";
  const key = (item: ThreadSummary) =>
    order === "id" ? "" : order === "updated" ? item.updatedAt : (item.createdAt as string);
  const sorted = threads
    .filter((item) => options.owner === undefined || item.owner === options.owner)
    .sort((a, b) => (key(a) === key(b) ? (a.id < b.id ? -1 : 1) : key(a) < key(b) ? -1 : 1));
  const descending = (options.direction ?? (order === "id" ? "asc" : "desc")) === "desc";
  return (descending ? sorted.reverse() : sorted).map((item) => item.id);
}

/**
 * Appends and owner changes on every thread from one client, `ROUNDS` times; with `seen`, listing in
 * between. (A listing repairs entries it finds stale, so the first phase lists nothing.)
 */
async function writeAndList(
  store: ThreadStore,
  threads: Thread[],
  seed: number,
  seen?: string[],
): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(
      threads.map(async (thread, index) => {
        if ((index + round + seed) % 3 === 0) {
          await thread.update({ owner: OWNERS[(index + round * seed) % OWNERS.length] as string });
        } else {
          await thread.append({ role: "user", text: `round ${round} from ${seed}` });
        }
      }),
    );
    if (!seen) continue;
    // A listing taken while the other client writes never shows a thread twice or under another owner.
    for (const owner of OWNERS) {
      const items = (await store.list({ owner, order: "updated", limit: 100 })).items;
      expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
      if (items.some((item) => item.owner !== owner)) seen.push(`${owner}: ${JSON.stringify(items)}`);
    }
  }
}

describe.each([
  ["a single server", singleUrl, false],
  ["Redis Cluster", clusterUrl, true],
])("the catalogue on %s under concurrent writers", (_name, url, cluster) => {
  const prefixes: string[] = [];
  afterAll(() => Promise.all(prefixes.map((prefix) => deleteKeys(url(), prefix))));

  const open = async (prefix: string) => {
    const client = cluster ? await connectCluster() : await connectSingle();
    return { store: redisStore({ client, prefix }), client };
  };

  it("lists every thread once, under its owner, in order, after two clients appended and moved them between owners", async () => {
    const prefix = uniquePrefix("catalogue-atomic");
    prefixes.push(prefix);
    const first = await open(prefix);
    const second = await open(prefix);
    const created = await Promise.all(
      Array.from({ length: THREADS }, (_, index) =>
        first.store.create({ id: `c-${index}`, owner: OWNERS[index % OWNERS.length] as string }),
      ),
    );
    const again = await Promise.all(created.map((thread) => second.store.get(thread.id)));
    await Promise.all([writeAndList(first.store, created, 1), writeAndList(second.store, again, 2)]);

    // Before anything lists: each thread's entry says what its record says, and nothing else is indexed.
    const keys = (first.store.driver as RedisLogDriver).layout.catalogue("");
    const send = (args: string[]) =>
      cluster
        ? (first.client as Awaited<ReturnType<typeof connectCluster>>).sendCommand(keys.order, true, args)
        : (first.client as Awaited<ReturnType<typeof connectSingle>>).sendCommand(args);
    const entries = (await send(["HGETALL", keys.entries])) as unknown;
    const flat = Array.isArray(entries) ? (entries as string[]) : Object.entries(entries as object).flat();
    const indexed = new Map<string, unknown>();
    for (let index = 0; index < flat.length; index += 2)
      indexed.set(String(flat[index]), JSON.parse(String(flat[index + 1])));
    for (const thread of created) {
      const stored = (await first.store.get(thread.id)) as LogThread;
      expect(indexed.get(thread.id), thread.id).toEqual([
        stored.revision,
        stored.owner ?? "",
        stored.record.updatedAt,
        stored.record.createdAt,
      ]);
    }
    expect(indexed.size).toBe(THREADS);
    expect(Number(await send(["ZCARD", keys.order]))).toBe(THREADS * 6);

    // Two clients again, listing while the other writes.
    const wrong: string[] = [];
    await Promise.all([
      writeAndList(first.store, created, 3, wrong),
      writeAndList(second.store, again, 4, wrong),
    ]);
    expect(wrong).toEqual([]);

    const threads = (await walk(first.store, { order: "id" })).map((item) => item);
    expect(threads.map((item) => item.id).sort()).toEqual(created.map((thread) => thread.id).sort());
    for (const store of [first.store, second.store]) {
      for (const owner of [undefined, ...OWNERS]) {
        for (const options of ORDERS) {
          const listing = { ...options, ...(owner ? { owner } : {}) };
          expect(
            (await walk(store, listing)).map((item) => item.id),
            JSON.stringify(listing),
          ).toEqual(expected(threads, listing));
        }
        expect(await store.count(owner ? { owner } : {})).toBe(expected(threads, { owner }).length);
      }
    }
    // Nothing is left behind in the index: each thread holds three members, and three more for its owner.
    const order = (first.store.driver as RedisLogDriver).layout.catalogue("").order;
    const members = cluster
      ? await (first.client as Awaited<ReturnType<typeof connectCluster>>).sendCommand(order, true, [
          "ZCARD",
          order,
        ])
      : await (first.client as Awaited<ReturnType<typeof connectSingle>>).sendCommand(["ZCARD", order]);
    expect(Number(members)).toBe(THREADS * 6);
    for (const { store, client } of [first, second]) {
      await store.close();
      await client.close();
    }
  }, 120_000);
});

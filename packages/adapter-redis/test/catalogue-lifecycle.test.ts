import type { ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, deleteKeys, keysWithPrefix, singleUrl, uniquePrefix } from "./redis-nodes.js";

const newest = async (store: ThreadStore, owner?: string) =>
  (await store.list({ order: "updated", ...(owner ? { owner } : {}) })).items.map((item) => item.id);

describe.each([
  ["a single server", singleUrl, false],
  ["Redis Cluster", clusterUrl, true],
])("the catalogue through a thread's life on %s", (_name, url, cluster) => {
  const prefixes: string[] = [];
  afterAll(() => Promise.all(prefixes.map((prefix) => deleteKeys(url(), prefix))));
  const open = async (prefix: string, ttlSeconds?: number) =>
    redisStore({ url: url(), cluster, prefix, ...(ttlSeconds ? { ttlSeconds } : {}) });

  it("follows rollback, fork and delete, and a thread made again under a deleted id", async () => {
    const prefix = uniquePrefix("catalogue-life");
    prefixes.push(prefix);
    const store = await open(prefix);
    const a = await store.create({ id: "a", owner: "u-1" });
    const b = await store.create({ id: "b", owner: "u-1" });
    const checkpoint = await a.checkpoint("start");
    await b.append({ role: "user", text: "b moves ahead" });
    expect(await newest(store, "u-1")).toEqual(["b", "a"]);
    await a.rollback(checkpoint);
    expect(await newest(store, "u-1")).toEqual(["a", "b"]);
    const fork = await b.fork();
    expect(await newest(store, "u-1")).toEqual([fork.id, "a", "b"]);
    await b.delete();
    expect(await newest(store, "u-1")).toEqual([fork.id, "a"]);
    expect(await store.count({ owner: "u-1" })).toBe(2);
    await store.create({ id: "b", owner: "u-2" });
    expect(await newest(store, "u-1")).toEqual([fork.id, "a"]);
    expect(await newest(store, "u-2")).toEqual(["b"]);
    expect(await store.count()).toBe(3);
    for (const id of ["a", "b", fork.id]) await store.delete(id);
    expect(await store.count()).toBe(0);
    // An empty catalogue holds no key: only the version mark the first listing set stays.
    expect(await keysWithPrefix(url(), prefix)).toEqual([`${prefix}:catalogue`]);
    await store.close();
  }, 60_000);

  it("drops a thread whose keys expired when a listing meets it, and counts right after", async () => {
    const prefix = uniquePrefix("catalogue-ttl");
    prefixes.push(prefix);
    const store = await open(prefix, 1);
    await store.create({ id: "short", owner: "u-1" });
    expect(await store.count({ owner: "u-1" })).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await newest(store, "u-1")).toEqual([]);
    expect(await store.count({ owner: "u-1" })).toBe(0);
    await store.close();
  }, 60_000);
});

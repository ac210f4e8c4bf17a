import { createMemoryStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import {
  clusterUrl,
  connectCluster,
  connectSingle,
  deleteKeys,
  keysWithPrefix,
  singleUrl,
  uniquePrefix,
} from "./redis-nodes.js";

/** Removes the catalogue and its version mark: the store as a version without the catalogue left it. */
async function forgetCatalogue(url: string, prefix: string, cluster: boolean): Promise<number> {
  const keys = (await keysWithPrefix(url, prefix)).filter(
    (key) => key.includes(":catalogue:") || key === `${prefix}:catalogue`,
  );
  if (cluster) {
    const client = await connectCluster();
    for (const key of keys) await client.sendCommand(key, false, ["DEL", key]);
    await client.close();
  } else {
    const client = await connectSingle(url);
    for (const key of keys) await client.sendCommand(["DEL", key]);
    await client.close();
  }
  return keys.length;
}

describe.each([
  ["a single server", singleUrl, false],
  ["Redis Cluster", clusterUrl, true],
])("a store written before the catalogue, on %s", (_name, url, cluster) => {
  const prefixes: string[] = [];
  afterAll(() => Promise.all(prefixes.map((prefix) => deleteKeys(url(), prefix))));
  const open = (prefix: string) =>
    cluster ? redisStore({ url: url(), cluster: true, prefix }) : redisStore({ url: url(), prefix });

  it("is indexed by its first listing: every thread, every scope and every saved state, then kept by writes", async () => {
    const prefix = uniquePrefix("catalogue-build");
    prefixes.push(prefix);
    const before = open(prefix);
    const old = await before.create({ id: "old-1", owner: "u-7", title: "first" });
    await old.append({ role: "user", text: "hi" });
    await before.create({ id: "old-2", owner: "u-8" });
    await before.create({ id: "old-3" });
    await before.scope("tenant").create({ id: "scoped", owner: "u-7" });
    // A thread of another type, kept as a saved state, with its owner.
    const visitor = await createMemoryStore({ registry: before.registry }).create({
      id: "visitor",
      owner: "u-8",
    });
    await before.save(visitor);
    await before.close();
    expect(await forgetCatalogue(url(), prefix, cluster)).toBeGreaterThan(0);

    const after = open(prefix);
    // A write before the first listing: the thread is not indexed yet, and the build takes it as it is then.
    await (await after.get("old-2")).append({ role: "user", text: "later" });
    const newest = (await after.list({ order: "updated", limit: 10 })).items.map((item) => item.id);
    expect(newest.slice(0, 1)).toEqual(["old-2"]);
    expect(newest.sort()).toEqual(["old-1", "old-2", "old-3", "visitor"].sort());
    expect(
      (await after.list({ owner: "u-7", order: "created" })).items.map((item) => [item.id, item.title]),
    ).toEqual([["old-1", "first"]]);
    expect(await after.count()).toBe(4);
    expect(await after.count({ owner: "u-8" })).toBe(2);
    expect((await after.scope("tenant").list({ owner: "u-7" })).items.map((item) => item.id)).toEqual([
      "scoped",
    ]);
    const marks = (await keysWithPrefix(url(), prefix)).filter((key) => key === `${prefix}:catalogue`);
    expect(marks).toHaveLength(1);

    // Writes after the build keep the catalogue: an owner change moves the thread between owners.
    await (await after.get("old-1")).update({ owner: "u-8" });
    expect(await after.count({ owner: "u-7" })).toBe(0);
    expect((await after.list({ owner: "u-8", order: "updated" })).items.map((item) => item.id)).toEqual([
      "old-1",
      "old-2",
      "visitor",
    ]);
    await after.close();
  }, 60_000);
});

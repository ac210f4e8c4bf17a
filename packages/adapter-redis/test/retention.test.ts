import type { LogThread } from "@skein/thread-core";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import type { RedisLogDriver } from "../src/redis-log-driver.js";
import { clusterUrl, connectCluster, deleteKeys, uniquePrefix } from "./redis-nodes.js";

const TTL = 1000;
const say = (id: string) => ({ id, role: "user" as const, text: id });

describe("retention (ttlSeconds) on Redis Cluster", () => {
  let prefix = "";
  afterEach(() => deleteKeys(clusterUrl(), prefix));

  it("expires a thread's keys after the TTL, refreshed by every write", async () => {
    prefix = uniquePrefix("ttl");
    const cluster = await connectCluster();
    const ttlOf = async (key: string) => Number(await cluster.sendCommand(key, true, ["TTL", key]));
    const store = redisStore({ client: cluster, prefix, ttlSeconds: TTL });
    const layout = (store.driver as RedisLogDriver).layout;
    const thread = (await store.create({ id: "kept" })) as LogThread;
    await thread.append([say("a"), { id: "s", role: "system", text: "rules" }]);
    const record = layout.record(thread.id);
    const head = layout.segment(thread.record.head);
    for (const key of [record.record, head.info, head.messages, head.ids, head.system]) {
      expect(await ttlOf(key)).toBeGreaterThan(TTL - 10);
      expect(await ttlOf(key)).toBeLessThanOrEqual(TTL);
    }
    await cluster.sendCommand(record.record, false, ["EXPIRE", record.record, "5"]);
    await cluster.sendCommand(head.messages, false, ["EXPIRE", head.messages, "5"]);
    await thread.append(say("b"));
    expect(await ttlOf(record.record)).toBeGreaterThan(TTL - 10);
    expect(await ttlOf(head.messages)).toBeGreaterThan(TTL - 10);
    await store.close();
    await cluster.close();
  });

  it("keeps what a fork reads in other slots alive at least as long as the fork", async () => {
    prefix = uniquePrefix("ttl-fork");
    const cluster = await connectCluster();
    const ttlOf = async (key: string) => Number(await cluster.sendCommand(key, true, ["TTL", key]));
    const store = redisStore({ client: cluster, prefix, ttlSeconds: TTL });
    const layout = (store.driver as RedisLogDriver).layout;
    const parent = (await store.create({ id: "parent" })) as LogThread;
    await parent.append([say("a"), say("b")]);
    const parentHead = layout.segment(parent.record.head);
    const fork = await parent.fork({ id: "fork" });
    await fork.append(say("f"));
    // Shared segments get the TTL plus the refresh interval, and the parent's writes never shorten that.
    expect(await ttlOf(parentHead.messages)).toBeGreaterThan(TTL);
    await parent.append(say("c"));
    expect(await ttlOf(parentHead.messages)).toBeGreaterThan(TTL);
    await store.close();
    await cluster.close();
  });

  it("sets no expiry without ttlSeconds", async () => {
    prefix = uniquePrefix("no-ttl");
    const cluster = await connectCluster();
    const store = redisStore({ client: cluster, prefix });
    const thread = await store.create({ id: "forever" });
    await thread.append(say("a"));
    const key = (store.driver as RedisLogDriver).layout.record(thread.id).record;
    expect(Number(await cluster.sendCommand(key, true, ["TTL", key]))).toBe(-1);
    await store.close();
    await cluster.close();
  });
});

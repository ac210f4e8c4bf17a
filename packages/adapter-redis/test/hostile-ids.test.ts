import type { LogThread } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import type { RedisLogDriver } from "../src/redis-log-driver.js";
import { clusterUrl, connectCluster, deleteKeys, keysWithPrefix, uniquePrefix } from "./redis-nodes.js";

const HOSTILE_IDS = [
  "*",
  "{",
  "}",
  "{}",
  "{a}b",
  "a}b{c",
  ":",
  "a:b",
  "=a",
  "a",
  "#",
  "~",
  "=a~AAAAAAAAAAAAAAAAAAAAAA",
  "ünïcödé-🧵",
  "\uffff",
  "x".repeat(256),
  "🧵".repeat(256),
];

/** A hostile message id of at most 256 code units. */
const messageId = (threadId: string) => `{${threadId}}`.slice(0, 256);

const prefix = uniquePrefix("hostile");
afterAll(() => deleteKeys(clusterUrl(), prefix));

describe("hostile ids on Redis Cluster", () => {
  it("keep every thread apart, in one hash slot, and list in code-unit order", async () => {
    const cluster = await connectCluster();
    const store = redisStore({ client: cluster, prefix });
    const layout = (store.driver as RedisLogDriver).layout;
    const slotOf = async (key: string) =>
      Number(await cluster.sendCommand(key, true, ["CLUSTER", "KEYSLOT", key]));
    const slots = new Set<number>();
    for (const id of HOSTILE_IDS) {
      const thread = (await store.create({ id })) as LogThread;
      await thread.append({ id: messageId(id), role: "user", text: `I am ${id}` });
      const record = layout.record(thread.id);
      const head = layout.segment(thread.record.head);
      const threadSlots = new Set(
        await Promise.all([record.record, record.events, head.info, head.messages].map(slotOf)),
      );
      expect(threadSlots.size).toBe(1);
      for (const slot of threadSlots) slots.add(slot);
      for (const key of [record.record, head.messages]) expect(key.match(/[{}]/g)).toEqual(["{", "}"]);
    }
    // Distinct ids land in many slots, not one.
    expect(slots.size).toBeGreaterThan(HOSTILE_IDS.length / 2);
    for (const id of HOSTILE_IDS) {
      const messages = await (await store.get(id)).messages();
      expect(messages.map((message) => [message.id, message.contents[0]])).toEqual([
        [messageId(id), { type: "text", text: `I am ${id}` }],
      ]);
    }
    const listed = (await store.list({ limit: 100 })).items.map((item) => item.id);
    expect(listed).toEqual([...HOSTILE_IDS].sort());
    expect((await keysWithPrefix(clusterUrl(), prefix)).every((key) => key.startsWith(`${prefix}:`))).toBe(
      true,
    );
    await store.close();
    await cluster.close();
  });

  it("keeps message ids apart that differ only in lone surrogates or braces", async () => {
    const cluster = await connectCluster();
    const store = redisStore({ client: cluster, prefix });
    const thread = await store.create();
    const ids = ["\ud800", "\udbff", "\udc00", "{x}", "x", "\ud83e\uddf5", "\uffff"];
    await thread.append(ids.map((id) => ({ id, role: "user" as const, text: id })));
    await thread.append(ids.map((id) => ({ id, role: "user" as const, text: id })));
    expect((await thread.messages()).map((message) => message.id)).toEqual(ids);
    expect((await thread.messages({ after: "\udbff" })).map((message) => message.id)).toEqual(ids.slice(2));
    await store.close();
    await cluster.close();
  });
});

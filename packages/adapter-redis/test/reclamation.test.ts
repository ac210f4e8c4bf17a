import type { Message, Thread } from "@skein/thread-core";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, deleteKeys, keysWithPrefix, singleUrl, uniquePrefix } from "./redis-nodes.js";

const say = (id: string) => ({ id, role: "user" as const, text: id });
const ids = async (thread: Thread) => (await thread.messages()).map((message: Message) => message.id);
const segmentKeys = (keys: string[]) =>
  keys.filter((key) => key.includes(":segment:") && key.endsWith(":info"));

describe.each([
  ["a single server", singleUrl],
  ["Redis Cluster", clusterUrl],
])("reclamation on %s", (_name, url) => {
  let prefix = "";
  afterEach(() => deleteKeys(url(), prefix));

  it("frees a segment with its last reference, and never one a fork still reads", async () => {
    prefix = uniquePrefix("reclaim");
    const store = redisStore({ url: url(), prefix });
    const parent = await store.create({ id: "parent" });
    await parent.append([say("a"), say("b"), say("c")]);
    const checkpoint = await parent.checkpoint();
    const fork = await parent.fork({ id: "fork", at: "b" });
    await fork.append(say("f"));
    const grandchild = await fork.fork({ id: "grandchild" });
    await fork.rollback("a");
    await fork.append(say("g"));
    // parent's head, fork's first head (abandoned by the rollback, kept by history) and new head, grandchild's head.
    expect(segmentKeys(await keysWithPrefix(url(), prefix))).toHaveLength(4);

    await store.delete("parent");
    // The parent's head holds the prefix a and b that the fork and grandchild read: it stays.
    expect(segmentKeys(await keysWithPrefix(url(), prefix))).toHaveLength(4);
    expect(await ids(fork)).toEqual(["a", "g"]);
    expect(await ids(grandchild)).toEqual(["a", "b", "f"]);
    const rollback = (await fork.history()).find((event) => event.kind === "rollback");
    if (rollback?.kind !== "rollback") throw new Error("the fork's history lacks its rollback");
    expect((await (await fork.at(rollback.from)).messages()).map((message) => message.id)).toEqual([
      "a",
      "b",
      "f",
    ]);
    expect(checkpoint.threadId).toBe("parent");

    await store.delete("fork");
    expect(await ids(grandchild)).toEqual(["a", "b", "f"]);
    // The fork's second head is freed; its first is the grandchild's base, and the parent's head is under both.
    expect(segmentKeys(await keysWithPrefix(url(), prefix))).toHaveLength(3);

    await store.delete("grandchild");
    expect(await keysWithPrefix(url(), prefix)).toEqual([]);
    await store.close();
  });

  it("a rollback frees nothing that history can still reach, and deleting frees everything", async () => {
    prefix = uniquePrefix("rollback");
    const store = redisStore({ url: url(), prefix });
    const thread = await store.create();
    await thread.append([say("a"), say("b")]);
    for (let round = 0; round < 5; round++) {
      await thread.rollback("a");
      await thread.append(say(`x${round}`));
    }
    const history = await thread.history();
    expect(history).toHaveLength(5);
    for (const event of history) {
      if (event.kind === "rollback") expect(await (await thread.at(event.from)).messages()).toHaveLength(2);
    }
    await thread.delete();
    expect(await keysWithPrefix(url(), prefix)).toEqual([]);
    await store.close();
  });
});

import { openStore, type ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { fileStore, redisStore, type SharedStore } from "./support/backends.js";
import { useRedis } from "./support/test-redis.js";

const redis = useRedis();
const opened: ThreadStore[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/**
 * A handle that has not seen the newest messages (another process appended them) rolls back to one of
 * them. The thread holds the message and is at the revision the caller names, so the rollback must land.
 *
 * Regression: `LogThread.rollback` once resolved its target only against the record the handle last read,
 * so it threw PointNotFoundError for a message or checkpoint made since; it now reads again on a miss.
 */
describe.each([
  ["memory", async () => ({ url: "memory:", cleanup: async () => {} })],
  ["fs", () => fileStore("stale")],
  ["redis", async () => redisStore(redis.url(), "stale")],
] as Array<[string, () => Promise<SharedStore>]>)(
  "%s: a handle that has not seen the newest changes",
  (name, shared) => {
    it("rolls back to a message another writer appended since it last read", async () => {
      const { url, cleanup } = await shared();
      const writerStore = await openStore(url);
      opened.push(writerStore);
      // In memory, both handles must share the store; elsewhere each is a store of its own, as two processes.
      const staleStore = name === "memory" ? writerStore : await openStore(url);
      opened.push(staleStore);
      const writer = await writerStore.create({ id: "stale" });
      await writer.append({ id: "m1", role: "user", text: "one" });
      const stale = await staleStore.get("stale");
      await writer.append({ id: "m2", role: "user", text: "two" });
      await writer.append({ id: "m3", role: "user", text: "three" });
      await writer.refresh();
      await stale.rollback("m2", { ifRevision: writer.revision });
      expect((await writer.messages()).map((message) => message.id)).toEqual(["m1", "m2"]);
      await cleanup();
    });

    it("rolls back to a checkpoint another writer made since it last read", async () => {
      const { url, cleanup } = await shared();
      const writerStore = await openStore(url);
      opened.push(writerStore);
      const staleStore = name === "memory" ? writerStore : await openStore(url);
      opened.push(staleStore);
      const writer = await writerStore.create({ id: "stale-checkpoint" });
      const stale = await staleStore.get("stale-checkpoint");
      await writer.append({ id: "m1", role: "user", text: "one" });
      const checkpoint = await writer.checkpoint("after one");
      await writer.append({ id: "m2", role: "user", text: "two" });
      await stale.rollback(checkpoint.id);
      expect((await writer.messages()).map((message) => message.id)).toEqual(["m1"]);
      await cleanup();
    });
  },
);

import { randomBytes } from "node:crypto";
import { openStore, type ThreadStore, UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, inject, it, vi } from "vitest";
import { CONFIG_THREAD_TYPE, configIdOf } from "../src/config-document.js";
import { createThreadService, SERVICE_RECORD_KEY, type ServiceRecord } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

const redis = inject("redis");

/** What an application can do with the store alone: rewrite the thread's metadata, record included. */
async function rewriteConfig(store: ThreadStore, threadId: string, config: Record<string, unknown>) {
  const thread = await store.get(threadId);
  const record = thread.metadata[SERVICE_RECORD_KEY] as ServiceRecord;
  await thread.update({
    metadata: { ...thread.metadata, note: "edited", [SERVICE_RECORD_KEY]: { ...record, config } },
  });
}

const stores: Array<[string, () => Promise<ThreadStore>]> = [
  ["memory", () => openStore("memory:")],
  [
    "redis",
    () => {
      if ("unavailable" in redis) throw new Error(redis.unavailable);
      return openStore(redis.url);
    },
  ],
];

describe.each(stores)("the configuration on a %s store", (_name, open) => {
  it("is not rewritten by updating the thread's metadata through the store", async () => {
    const store = await open();
    const id = `immutable-${randomBytes(4).toString("hex")}`;
    try {
      const runner = scriptedRunner();
      const service = createThreadService({ store, runner });
      const config = { systemPrompt: "Be kind.", temperature: 0.2, tags: ["support"] };
      await service.createThread({ id, config });
      await rewriteConfig(store, id, { systemPrompt: "Be rude.", temperature: 2 });
      expect((await store.get(id)).metadata.note).toBe("edited");

      expect((await service.info(id)).config).toEqual(config);
      await service.send(id, "hello");
      expect(runner.seen[0]?.options.config?.systemPrompt).toBe("Be kind.");
      await service.close();

      // A new instance, with nothing cached, reads the same configuration.
      const fresh = createThreadService({ store, runner: scriptedRunner() });
      expect((await fresh.info(id)).config).toEqual(config);
      const branch = await fresh.branch(id);
      expect((await fresh.info(branch.threadId)).config).toEqual(config);
      await fresh.close();
      await store.delete(branch.threadId);
      await store.delete(configIdOf(branch.threadId));
    } finally {
      await store.delete(id);
      await store.delete(configIdOf(id));
      await store.close();
    }
  });

  it("is kept in a plain state document of its own, read with getState, not a thread", async () => {
    const store = await open();
    const id = `immutable-${randomBytes(4).toString("hex")}`;
    try {
      const service = createThreadService({ store, runner: scriptedRunner() });
      await service.createThread({ id, config: { model: "m" } });
      expect(await store.getState(configIdOf(id))).toMatchObject({
        $type: CONFIG_THREAD_TYPE,
        threadId: id,
        config: { model: "m" },
      });
      await expect(store.get(configIdOf(id))).rejects.toSatisfy((error: unknown) =>
        UnsupportedOperationError.isInstance(error),
      );
      await service.close();
    } finally {
      await store.delete(id);
      await store.delete(configIdOf(id));
      await store.close();
    }
  });

  it("of a thread made again under a deleted thread's id is its own, and read once", async () => {
    const store = await open();
    const source = await openStore("memory:");
    const id = `reused-${randomBytes(4).toString("hex")}`;
    try {
      const service = createThreadService({ store, runner: scriptedRunner() });
      // Both threads are made in the same millisecond: their creation times cannot tell them apart.
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
      await service.createThread({ id, config: { model: "old-model" } });
      await store.delete(id); // the application deletes the thread; its configuration document stays
      // Another service thread with the same id, exported from another store and imported here.
      const other = createThreadService({ store: source, runner: scriptedRunner() });
      await other.createThread({ id, config: { model: "new-model" } });
      vi.useRealTimers();
      await store.import(await source.export(id));
      await other.close();

      let reads = 0;
      const getState = store.getState.bind(store);
      store.getState = (async (threadId: string) => {
        if (threadId === configIdOf(id)) reads++;
        return getState(threadId);
      }) as typeof store.getState;
      const infos = [await service.info(id), await service.info(id), await service.info(id)];
      expect(infos.map((info) => info.config)).toEqual(Array(3).fill({ model: "new-model" }));
      expect(reads).toBe(1);
      // A new instance, with nothing cached, reads the replaced document.
      expect((await createThreadService({ store, runner: scriptedRunner() }).info(id)).config).toEqual({
        model: "new-model",
      });
      await service.close();
    } finally {
      vi.useRealTimers();
      await store.delete(id);
      await store.delete(configIdOf(id));
      await store.close();
    }
  });

  it("of a thread without a document (made by an earlier version) is fixed the first time it is read", async () => {
    const store = await open();
    const id = `legacy-${randomBytes(4).toString("hex")}`;
    try {
      const record = {
        v: 1,
        config: { model: "old" },
        lifecycle: "active",
        branches: [],
        attachments: [],
        createdAt: new Date().toISOString(),
      };
      await store.create({ id, metadata: { [SERVICE_RECORD_KEY]: record } });
      const service = createThreadService({ store, runner: scriptedRunner() });
      expect((await service.info(id)).config).toEqual({ model: "old" });
      await rewriteConfig(store, id, { model: "new" });
      expect((await createThreadService({ store, runner: scriptedRunner() }).info(id)).config).toEqual({
        model: "old",
      });
    } finally {
      await store.delete(id);
      await store.delete(configIdOf(id));
      await store.close();
    }
  });
});

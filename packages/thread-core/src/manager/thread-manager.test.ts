import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { createThreadManager, type PairKey, ThreadManagerError } from "./thread-manager.js";

describe("thread manager with load/save callbacks", () => {
  it("persists each pair's thread through the callbacks", async () => {
    const saved = new Map<string, unknown>();
    const callbacks = {
      registry: createRegistry(),
      load: async (key: PairKey) => saved.get(key.threadId),
      save: async (key: PairKey, state: unknown) =>
        void saved.set(key.threadId, JSON.parse(JSON.stringify(state))),
      list: async (chatId: string) => [...saved.keys()].map((threadId) => ({ chatId, threadId }) as PairKey),
    };
    const manager = createThreadManager(callbacks);
    const thread = await manager.get("c", "planner", "writer");
    await thread.append({ role: "assistant", text: "draft" });
    await manager.save(thread);
    const later = createThreadManager(callbacks);
    const again = await later.get("c", "writer", "planner");
    expect((await again.messages()).map((message) => message.contents[0])).toEqual([
      { type: "text", text: "draft" },
    ]);
    expect(await later.list("c")).toHaveLength(1);
  });

  it("surfaces callback failures as typed errors with their cause", async () => {
    const failure = new Error("database down");
    const manager = createThreadManager({
      registry: createRegistry(),
      load: async () => {
        throw failure;
      },
      save: async () => {},
    });
    const error = await manager.get("c", "a").then(
      () => new Error("resolved"),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(ThreadManagerError);
    expect(error.message).toContain("database down");
    expect(error.cause).toBe(failure);
    await expect(manager.list("c")).rejects.toThrow(/list callback/);
  });
});

import { expect } from "vitest";
import { createThreadManager } from "../../manager/thread-manager.js";
import { conformanceCase, type SuiteContext } from "../suite-context.js";

/** SPEC §6: one isolated thread per communication pair of a chat. */
export function managerCases(context: SuiteContext): void {
  conformanceCase(context, "each pair of a chat gets its own thread, the same in either order", async () => {
    const manager = createThreadManager({ store: context.store });
    const userA = await manager.get("chat-1", "agentA");
    const ab = await manager.get("chat-1", "agentA", "agentB");
    const ba = await manager.get("chat-1", "agentB", "agentA");
    expect(ab.id).toBe(ba.id);
    expect(userA.id).not.toBe(ab.id);
    expect((await manager.get("chat-2", "agentA", "agentB")).id).not.toBe(ab.id);
    await ab.append({ role: "assistant", authorName: "agentA", text: "to B" });
    expect(await userA.messages()).toEqual([]);
    expect(await (await manager.get("chat-1", "agentB", "agentA")).messages()).toHaveLength(1);
    const pairs = await manager.list("chat-1");
    expect(pairs.map((pair) => pair.participants).sort()).toEqual([
      ["agentA", "agentB"],
      ["agentA", "user"],
    ]);
  });

  conformanceCase(context, "names holding separators never share a thread", async () => {
    const manager = createThreadManager({ store: context.store });
    const tricky = [
      ["chat", "a:b", "c"],
      ["chat", "a", "b:c"],
      ["chat:a", "b", "c"],
      ["chat", "a|b", "c"],
      ["chat", "a", "b|c"],
      ["chat", '"a","b"', "c"],
      ["chat", "a/b", "c"],
    ] as const;
    const ids = await Promise.all(tricky.map(([chat, first, second]) => manager.get(chat, first, second)));
    expect(new Set(ids.map((thread) => thread.id)).size).toBe(tricky.length);
  });

  conformanceCase(context, "concurrent first calls create one thread", async () => {
    const first = createThreadManager({ store: context.store });
    const second = createThreadManager({ store: context.store });
    const threads = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).get("race", "x", "y")),
    );
    expect(new Set(threads.map((thread) => thread.id)).size).toBe(1);
    await threads[0]?.append({ role: "user", text: "one" });
    expect(await threads[19]?.messages()).toHaveLength(1);
    expect((await context.store.list()).items).toHaveLength(1);
  });
}

import { createThreadManager } from "../../manager/thread-manager.js";
import type { Message } from "../../message.js";
import { expect } from "../expect.js";
import { conformanceCase, type SuiteContext } from "../suite-context.js";

const texts = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text: string }).text);

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

  conformanceCase(context, "an agent named like the user never shares the user's thread", async () => {
    const manager = createThreadManager({ store: context.store });
    const userThread = await manager.get("chat", "agentA");
    const agentPair = await manager.get("chat", "user", "agentA");
    expect(agentPair.id).not.toBe(userThread.id);
    await userThread.append({ role: "user", text: "from the user" });
    await agentPair.append({ role: "assistant", authorName: "user", text: "from the agent called user" });
    expect(texts(await userThread.messages())).toEqual(["from the user"]);
    expect(texts(await agentPair.messages())).toEqual(["from the agent called user"]);
    const pairs = await manager.list("chat");
    expect(pairs.find((pair) => pair.threadId === userThread.id)?.user).toBe("user");
    expect(pairs.find((pair) => pair.threadId === agentPair.id)?.user).toBeUndefined();
    // The user's name is part of the key, so each user of a chat has their own thread with an agent.
    const other = await createThreadManager({ store: context.store, user: "alice" }).get("chat", "agentA");
    expect(other.id).not.toBe(userThread.id);
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
    // An empty name is a rejected promise, not an exception thrown from the call.
    const empty = manager.get("chat", "");
    await expect(empty).rejects.toThrow(/non-empty strings/);
  });

  conformanceCase(context, "concurrent first calls create one thread", async () => {
    const first = createThreadManager({ store: context.store });
    const second = createThreadManager({ store: context.store });
    const threads = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 ? first : second).get("race", "x", "y")),
    );
    expect(new Set(threads.map((thread) => thread.id)).size).toBe(1);
    // Within one manager, every caller holds the same object.
    expect(new Set(threads.filter((_, index) => index % 2)).size).toBe(1);
    await threads[0]?.append({ role: "user", text: "one" });
    expect(await threads[19]?.messages()).toHaveLength(1);
    expect((await context.store.list()).items).toHaveLength(1);
  });

  conformanceCase(context, "two callers of a pair share one thread and keep every message", async () => {
    const manager = createThreadManager({ store: context.store });
    const a = await manager.get("chat", "A", "B");
    await a.append({ role: "user", text: "please do X" });
    await manager.save(a);
    const b = await manager.get("chat", "B", "A");
    expect(b).toBe(a);
    await b.append({ role: "assistant", text: "done X" });
    await manager.save(b);
    await a.append({ role: "user", text: "thanks" });
    await manager.save(a);
    const fresh = await createThreadManager({ store: context.store }).get("chat", "A", "B");
    expect(texts(await fresh.messages())).toEqual(["please do X", "done X", "thanks"]);
  });

  conformanceCase(context, "appendAndSave appends and persists in one call, from two managers", async () => {
    const first = createThreadManager({ store: context.store });
    const second = createThreadManager({ store: context.store });
    const a = await first.get("chat", "A", "B");
    const b = await second.get("chat", "B", "A");
    const [appended] = await first.appendAndSave(a, { role: "user", text: "one" });
    expect(appended?.id).toEqual(expect.any(String));
    await second.appendAndSave(b, [{ role: "assistant", text: "two" }]);
    await first.appendAndSave(a, { role: "user", text: "three" });
    const fresh = await createThreadManager({ store: context.store }).get("chat", "B", "A");
    expect(texts(await fresh.messages())).toEqual(["one", "two", "three"]);
  });

  conformanceCase(context, "a manager keeps at most cacheSize pairs live", async () => {
    const manager = createThreadManager({ store: context.store, cacheSize: 2 });
    const ab = await manager.get("chat", "A", "B");
    const ac = await manager.get("chat", "A", "C");
    expect(await manager.get("chat", "A", "B")).toBe(ab);
    await manager.get("chat", "A", "D"); // forgets A-C, the least recently used
    expect(await manager.get("chat", "A", "B")).toBe(ab);
    const again = await manager.get("chat", "A", "C");
    expect(again).not.toBe(ac);
    expect(again.id).toBe(ac.id);
    // An object the cache forgot still works and still saves.
    await manager.appendAndSave(ac, { role: "user", text: "late" });
    expect(texts(await again.messages())).toEqual(["late"]);
  });

  conformanceCase(context, "a pair deleted through its thread or in the store starts over", async () => {
    const manager = createThreadManager({ store: context.store });
    const thread = await manager.get("chat", "A", "B");
    await thread.append({ role: "user", text: "one" });
    await thread.delete(); // "start the conversation over"
    const again = await manager.get("chat", "A", "B");
    expect(again).not.toBe(thread);
    await again.append({ role: "user", text: "fresh" });
    expect(texts(await again.messages())).toEqual(["fresh"]);
    // Deleted by another process: the next get of this manager notices too.
    await context.store.delete(again.id);
    const third = await manager.get("chat", "B", "A");
    await manager.appendAndSave(third, { role: "user", text: "third" });
    expect(texts(await (await context.store.get(again.id)).messages())).toEqual(["third"]);
  });
}

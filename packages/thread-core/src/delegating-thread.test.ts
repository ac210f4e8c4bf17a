import { describe, expect, it } from "vitest";
import { createRegistry } from "./create-registry.js";
import { DelegatingThread } from "./delegating-thread.js";
import { ThreadNotFoundError } from "./errors.js";
import { createMemoryStore } from "./memory/memory-thread-type.js";
import type { Message, MessageInput } from "./message.js";
import type { AppendOptions, Thread } from "./thread.js";

const registry = createRegistry();
const say = (id: string) => ({ id, role: "user" as const, text: id });
const ids = (messages: Message[]) => messages.map((message) => message.id);

/** A wrapper that changes one thing: it counts appends. */
class CountingThread extends DelegatingThread {
  appends = 0;
  override append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    this.appends++;
    return super.append(input, options);
  }
}

describe("DelegatingThread", () => {
  it("hands every member of the Thread contract to its delegate", async () => {
    const store = createMemoryStore({ registry });
    const inner = await store.create({ id: "wrapped", metadata: { owner: "ada" } });
    const thread: Thread = new DelegatingThread(inner);

    expect(thread.specificationVersion).toBe("v1");
    expect([thread.id, thread.type, thread.capabilities]).toEqual([inner.id, inner.type, inner.capabilities]);
    expect(ids(await thread.append([say("a"), say("b")]))).toEqual(["a", "b"]);
    expect(thread.revision).toBe(inner.revision);
    expect(ids(await inner.messages())).toEqual(["a", "b"]);
    expect(ids(await thread.messages({ last: 1 }))).toEqual(["b"]);
    expect((await thread.message?.("a"))?.id).toBe("a");
    expect(ids(await thread.view({ maxMessages: 1 }))).toEqual(["b"]);

    const checkpoint = await thread.checkpoint("two", { ifRevision: inner.revision });
    await thread.append(say("c"));
    expect(ids(await (await thread.at(checkpoint)).messages())).toEqual(["a", "b"]);
    await thread.rollback(checkpoint);
    expect(ids(await inner.messages())).toEqual(["a", "b"]);
    expect((await thread.history()).map((event) => event.kind)).toEqual(["checkpoint", "rollback"]);

    await thread.update({ metadata: { owner: "grace" }, context: { step: 2 } });
    expect([thread.metadata, thread.context]).toEqual([{ owner: "grace" }, { step: 2 }]);
    const fork = await thread.fork({ id: "wrapped-fork" });
    expect(ids(await fork.messages())).toEqual(["a", "b"]);

    // Another object of the same thread writes; refresh reads it through the delegate.
    await (await store.get("wrapped")).append(say("d"));
    await thread.refresh();
    expect(thread.revision).toBe((await store.get("wrapped")).revision);
    expect(JSON.parse(JSON.stringify(thread))).toEqual(inner.toJSON());

    await thread.delete({ ifRevision: thread.revision as number });
    await expect(store.get("wrapped")).rejects.toSatisfy((error) => ThreadNotFoundError.isInstance(error));
  });

  it("has message(id) exactly when its delegate has it", async () => {
    const inner = await createMemoryStore({ registry }).create();
    // A thread whose type cannot look messages up: the memory thread without `message`.
    const noLookup = new Proxy(inner, {
      get(target, key) {
        if (key === "message") return undefined;
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
      has: (target, key) => key !== "message" && Reflect.has(target, key),
    });
    expect("message" in new DelegatingThread(inner)).toBe(true);
    expect(noLookup.message).toBeUndefined();
    expect("message" in new DelegatingThread(noLookup)).toBe(false);
  });

  it("lets a wrapper override only what it changes", async () => {
    const inner = await createMemoryStore({ registry }).create();
    const thread = new CountingThread(inner);
    await thread.append(say("a"));
    await thread.append([say("b"), say("c")]);
    expect(thread.appends).toBe(2);
    expect(ids(await thread.messages())).toEqual(["a", "b", "c"]);
    expect(thread.revision).toBe(inner.revision);
  });

  it("follows a delegate a subclass swaps in", async () => {
    const store = createMemoryStore({ registry });
    const first = await store.create({ id: "first" });
    const second = await store.create({ id: "second" });
    await second.append(say("z"));
    class SwappingThread extends DelegatingThread {
      swap(next: Thread): void {
        this.delegate = next;
      }
    }
    const thread = new SwappingThread(first);
    thread.swap(second);
    expect(thread.id).toBe("second");
    expect(ids(await thread.messages())).toEqual(["z"]);
    expect((await thread.message?.("z"))?.id).toBe("z");
  });
});

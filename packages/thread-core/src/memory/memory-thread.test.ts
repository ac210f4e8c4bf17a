import { describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import type { Message } from "../message.js";
import type { MemoryLogDriver } from "./memory-log-driver.js";
import { createMemoryStore } from "./memory-thread-type.js";

const registry = createRegistry();
const say = (id: string) => ({ id, role: "user" as const, text: id });

describe("memory threads", () => {
  it("carry their whole log in JSON, so time travel survives a round trip", async () => {
    const store = createMemoryStore({ registry });
    const thread = await store.create({ id: "traveller" });
    await thread.append([say("a"), say("b")]);
    const checkpoint = await thread.checkpoint("two");
    await thread.append(say("c"));
    await thread.rollback(checkpoint);
    await thread.append(say("d"));
    const state = JSON.parse(JSON.stringify(thread));
    expect(state).toMatchObject({ $type: "memory", id: "traveller", revision: thread.revision });
    expect(state.events.map((event: { kind: string }) => event.kind)).toEqual(["checkpoint", "rollback"]);

    const elsewhere = createMemoryStore({ registry });
    const again = await elsewhere.open(state);
    expect((await again.messages()).map((message) => message.id)).toEqual(["a", "b", "d"]);
    const [, rollback] = await again.history();
    if (rollback?.kind !== "rollback") throw new Error("expected a rollback event");
    expect((await (await again.at(rollback.from)).messages()).map((message) => message.id)).toEqual([
      "a",
      "b",
      "c",
    ]);
    await again.rollback(rollback.from);
    expect((await again.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "d"]);
  });

  it("export only the parts of a shared segment a fork reaches", async () => {
    const store = createMemoryStore({ registry });
    const parent = await store.create();
    await parent.append([say("a"), say("b"), say("c")]);
    const fork = await parent.fork({ at: "a" });
    const state = JSON.parse(JSON.stringify(fork));
    const exported = state.segments.flatMap(
      (segment: { messages: Array<{ id: string }> }) => segment.messages,
    );
    expect(exported.map((message: { id: string }) => message.id)).toEqual(["a"]);
  });

  it("reclaim segments that no thread or checkpoint reaches any more", async () => {
    const store = createMemoryStore({ registry });
    const parent = await store.create();
    await parent.append([say("a"), say("b")]);
    const fork = await parent.fork();
    await fork.append(say("f"));
    const segmentOf = async (id: string) => store.driver.segment(id);
    const parentHead = (parent as unknown as { record: { head: string } }).record.head;
    await parent.delete();
    expect(await segmentOf(parentHead)).toBeDefined(); // the fork still reaches it
    await fork.delete();
    expect(await segmentOf(parentHead)).toBeUndefined();
  });

  it("hand each reader its own copy, and find a retried id among thousands in one segment", async () => {
    const store = createMemoryStore({ registry });
    const thread = await store.create();
    const ids = Array.from({ length: 3000 }, (_, index) => `m-${index}`);
    for (let from = 0; from < ids.length; from += 500)
      await thread.append(ids.slice(from, from + 500).map(say));
    const [returned] = await thread.append(say("last"));
    const retried = await thread.append([say("m-7"), say("m-2999")]);
    expect(retried.map((message) => message.id)).toEqual(["m-7", "m-2999"]);
    const read = await thread.messages();
    expect(read).toHaveLength(3001);
    // Whatever a caller does to what it got, the stored messages stay as they were.
    for (const message of [returned, read[7]]) {
      try {
        (message as { id: string }).id = "changed";
      } catch {
        // frozen: refused, which keeps the stored message as well
      }
    }
    expect((await thread.messages()).map((message) => message.id)).toEqual([...ids, "last"]);
  });

  it("refuse an import that disagrees with a stored segment, writing nothing of it", async () => {
    const { MemoryLogDriver } = await import("./memory-log-driver.js");
    const { normalizeMessage } = await import("../message.js");
    const driver = new MemoryLogDriver();
    const info = { id: "seg_shared", base: null, start: 0, createdAt: new Date().toISOString() };
    const message = (id: string) => normalizeMessage({ id, role: "user", text: id });
    await driver.importSegment(info, [message("a"), message("b")], 0);
    await expect(driver.importSegment(info, [message("a"), message("x"), message("c")], 0)).rejects.toThrow(
      /another message/,
    );
    expect((await driver.readSegment("seg_shared", 0, 10)).map((stored) => stored.id)).toEqual(["a", "b"]);
    await driver.importSegment(info, [message("a"), message("b"), message("c")], 0);
    expect((await driver.readSegment("seg_shared", 0, 10)).map((stored) => stored.id)).toEqual([
      "a",
      "b",
      "c",
    ]);
  });

  it("find messages by ids that JSON escapes, and by ids stored after other keys", async () => {
    const store = createMemoryStore({ registry });
    const thread = await store.create();
    const ids = ['quote"d', "back\\slash", "line\nbreak", "é\u2028ü", "plain"];
    await thread.append(ids.map(say));
    for (const [index, id] of ids.entries()) {
      expect((await thread.message?.(id))?.id).toBe(id);
      expect((await thread.messages({ before: id })).map((message) => message.id)).toEqual(
        ids.slice(0, index),
      );
    }
    const { MemoryLogDriver } = await import("./memory-log-driver.js");
    const driver = new MemoryLogDriver();
    const info = { id: "seg_keys", base: null, start: 0, createdAt: new Date().toISOString() };
    const late = { role: "user", id: "late", createdAt: info.createdAt, contents: [] } as unknown as Message;
    await driver.importSegment(info, [late], 0);
    expect(await driver.locate("seg_keys", "late", 1)).toEqual({ offset: 0 });
  });

  it("give later readers the stored messages, whatever earlier readers did to theirs", async () => {
    const store = createMemoryStore({ registry });
    const thread = await store.create();
    await thread.append([
      say("a"),
      { id: "b", role: "user", contents: [{ type: "text", text: "b" }], metadata: { n: [1] } },
    ]);
    const stored = await thread.messages();
    for (let read = 0; read < 5; read++) {
      const [first, second] = await thread.view({ maxMessages: 2 });
      expect([first, second]).toEqual(stored);
      (first as { contents: unknown[] }).contents.push({ type: "text", text: "changed" });
      (second as unknown as { metadata: { n: number[] } }).metadata.n.push(read);
      (second as { id: string }).id = "changed";
    }
    expect(await thread.messages()).toEqual(stored);
  });

  it("keep a bounded number of parsed messages, and none of a deleted thread", async () => {
    const store = createMemoryStore({ registry });
    const driver = store.driver as MemoryLogDriver;
    const threads = [];
    for (let index = 0; index < 100; index++) {
      const thread = await store.create();
      await thread.append([say("a"), say("b"), say("c"), say("d"), say("e")]);
      threads.push(thread);
    }
    for (let round = 0; round < 3; round++) for (const thread of threads) await thread.messages({ last: 5 });
    expect(driver.parsed.size).toBeGreaterThan(0);
    expect(driver.parsed.size).toBeLessThanOrEqual(2 * driver.parsed.limits.messages);
    for (const thread of threads) await thread.delete();
    expect(driver.parsed.size).toBe(0);
    expect(driver.parsed.notes).toBe(0);
  });

  it("keep another thread's re-read messages parsed through a long read of a thread of many short segments", async () => {
    const store = createMemoryStore({ registry });
    const hot = await store.create();
    await hot.append([say("h0"), say("h1"), say("h2"), say("h3"), say("h4")]);
    // 100 segments of 10: each rollback to the end starts an empty head on the old one.
    const long = await store.create();
    for (let segment = 0; segment < 100; segment++) {
      await long.append(Array.from({ length: 10 }, (_, index) => say(`m${segment * 10 + index}`)));
      await long.rollback(await long.checkpoint());
    }
    await hot.view({ maxMessages: 5 });
    await hot.view({ maxMessages: 5 }); // read again: kept parsed
    const parse = vi.spyOn(JSON, "parse");
    try {
      await hot.view({ maxMessages: 5 });
      const warm = parse.mock.calls.length; // the record's reads; the messages are copies of kept ones
      expect((await long.messages()).length).toBe(1000);
      parse.mockClear();
      expect((await hot.view({ maxMessages: 5 })).map((message) => message.id)).toEqual([
        "h0",
        "h1",
        "h2",
        "h3",
        "h4",
      ]);
      expect(parse.mock.calls.length).toBe(warm);
    } finally {
      parse.mockRestore();
    }
  });

  it("drop every parsed message when the store closes", async () => {
    const store = createMemoryStore({ registry });
    const driver = store.driver as MemoryLogDriver;
    const thread = await store.create();
    await thread.append([say("a"), say("b"), say("c")]);
    await thread.messages({ last: 3 });
    await thread.messages({ last: 2 });
    expect(driver.parsed.size).toBe(2);
    await store.close();
    expect(driver.parsed.size).toBe(0);
    expect(driver.parsed.notes).toBe(0);
  });
});

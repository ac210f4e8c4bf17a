import { afterEach, describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import type { LogThread } from "../local/log-thread.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import { ReplyEndedError, StreamInProgressError } from "./stream-errors.js";

const registry = createRegistry();

describe("a reply whose writer stops renewing its lease", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // The writer's renewal timer is held still (fake timers) while the clock moves past its lease: a writer
  // that hangs or dies, as far as the thread can tell, in a store that lives in this process.
  it("is ended interrupted by the next read, every flushed delta kept, and its writer is told", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const store = createMemoryStore({ registry });
    const thread = (await store.create()) as LogThread;
    const reply = await thread.beginMessage({ role: "assistant", leaseMs: 1_000, maxBatchBytes: 1 });
    await reply.write("kept ");
    await reply.write("both");
    vi.setSystemTime(Date.now() + 999);
    expect((await thread.messages())[0]?.status).toBe("streaming");
    vi.setSystemTime(Date.now() + 2);
    const [message] = await thread.messages();
    expect(message).toMatchObject({ status: "interrupted", contents: [{ type: "text", text: "kept both" }] });
    const error = await reply.end().catch((caught: unknown) => caught);
    expect(ReplyEndedError.isInstance(error) && error.reason).toBe("lease-lapsed");
    expect(await thread.messages()).toEqual([message]);
  });

  it("is ended by the next write too, before it lands", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const store = createMemoryStore({ registry });
    const thread = (await store.create()) as LogThread;
    const writer = (await store.get(thread.id)) as LogThread;
    const reply = await writer.beginMessage({ role: "assistant", id: "r", leaseMs: 1_000, maxBatchBytes: 1 });
    await reply.write("flushed");
    vi.setSystemTime(Date.now() + 5_000);
    await thread.append({ id: "u", role: "user", text: "next" });
    const other = (await store.get(thread.id)) as LogThread;
    // Read without settling anything more: the record already holds the interrupted reply.
    expect(other.context).toEqual({});
    expect((await other.messages()).map((message) => [message.id, message.status])).toEqual([
      ["u", undefined],
      ["r", "interrupted"],
    ]);
  });

  it("keeps its lease without moving the thread's revision: an ifRevision taken mid-stream holds", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const store = createMemoryStore({ registry });
    const thread = (await store.create()) as LogThread;
    const reply = await thread.beginMessage({ role: "assistant", id: "r", leaseMs: 900 });
    await reply.write("early");
    const other = (await store.get(thread.id)) as LogThread;
    const revision = other.revision;
    for (let step = 0; step < 10; step++) await vi.advanceTimersByTimeAsync(300);
    await other.refresh();
    expect(other.revision).toBe(revision);
    // Long past the lease beginMessage set, the reply streams, and still holds off a second one.
    expect((await other.messages()).map((message) => message.status)).toEqual(["streaming"]);
    const refused = await other.beginMessage({ role: "assistant" }).catch((error: unknown) => error);
    expect(StreamInProgressError.isInstance(refused)).toBe(true);
    await other.append({ id: "u", role: "user", text: "meanwhile" }, { ifRevision: revision });
    expect((await reply.end()).contents).toEqual([{ type: "text", text: "early" }]);
    expect((await other.messages()).map((message) => message.id)).toEqual(["u", "r"]);
  });

  it("keeps its lease while the writer renews it", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const store = createMemoryStore({ registry });
    const thread = (await store.create()) as LogThread;
    const reply = await thread.beginMessage({ role: "assistant", leaseMs: 900 });
    for (let step = 0; step < 10; step++) {
      // Each tick of a third of the lease renews it; the renewal's commit is awaited before the next tick.
      await vi.advanceTimersByTimeAsync(300);
    }
    expect((await thread.messages())[0]?.status).toBe("streaming");
    expect((await reply.end()).status).toBeUndefined();
  });
});

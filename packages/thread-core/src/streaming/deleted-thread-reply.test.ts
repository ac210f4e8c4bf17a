import { afterEach, describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import { ThreadNotFoundError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { streamsOf } from "./stream-entries.js";

/** A reply still streaming while its thread is deleted (an erase, a sweep, `store.delete`) leaves no batch. */
describe("a reply whose thread is deleted while it streams", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function streamingReply() {
    const driver = new MemoryLogDriver();
    const store = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
    const thread = (await store.create({ id: "t" })) as LogThread;
    // Begun, no batch written yet: the segment is made by the first batch (after the delete, below).
    const reply = await thread.beginMessage({ role: "assistant", maxBatchBytes: 1, leaseMs: 1_000 });
    const record = await driver.read("t");
    const [stream] = record?.kind === "log" ? streamsOf(record.context) : [];
    if (!stream) throw new Error("the reply's entry is not in the record");
    await store.delete("t");
    expect(await driver.segment(stream.segment)).toBeUndefined();
    return { driver, reply, segment: stream.segment };
  }

  it("drops the batch written after the delete when its end finds the thread gone", async () => {
    const { driver, reply, segment } = await streamingReply();
    // The first batch, written after the delete, makes the reply's segment: nothing references it.
    await reply.write("first batch");
    expect(await driver.segment(segment)).toBeDefined();
    const error = await reply.end().catch((caught: unknown) => caught);
    expect(ThreadNotFoundError.isInstance(error)).toBe(true);
    expect(await driver.segment(segment)).toBeUndefined();
  });

  it("learns at its lease's renewal that the thread is gone, and leaves no segment", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { driver, reply, segment } = await streamingReply();
    for (let tick = 0; tick < 6; tick++) await vi.advanceTimersByTimeAsync(500);
    expect(await driver.segment(segment)).toBeUndefined();
    const error = await reply.write("late").catch((caught: unknown) => caught);
    expect(ThreadNotFoundError.isInstance(error)).toBe(true);
    expect(await driver.segment(segment)).toBeUndefined();
  });
});

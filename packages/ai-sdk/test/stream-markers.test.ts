import { freshStore, type TestStore } from "@skein/test-support/fresh-store";
import type { UIMessageChunk } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkDeltas } from "../src/chunk-deltas.js";
import { loadChat } from "../src/index.js";
import { assertStreamingThread } from "../src/streaming-thread.js";

let test: TestStore;
beforeEach(async () => {
  test = await freshStore("memory");
});
afterEach(() => test.dispose());

const chunks: UIMessageChunk[] = [
  { type: "start-step" },
  { type: "reasoning-start", id: "r1" },
  { type: "reasoning-delta", id: "r1", delta: "Think" },
  { type: "reasoning-delta", id: "r1", delta: "ing." },
  { type: "reasoning-end", id: "r1" },
  { type: "text-start", id: "t1", providerMetadata: { mock: { item: "t1" } } },
  { type: "text-delta", id: "t1", delta: "Hel" },
  { type: "text-delta", id: "t1", delta: "lo." },
  { type: "text-end", id: "t1", providerMetadata: { mock: { item: "t1", done: true } } },
  { type: "text-start", id: "t2" },
  { type: "text-delta", id: "t2", delta: "Bye." },
  { type: "text-end", id: "t2" },
  { type: "text-start", id: "t3" },
  { type: "text-delta", id: "t3", delta: "Cut" },
];

describe("a reply landed from its deltas alone (its writer died) loads as the parts the client had", () => {
  it("folds the markers: a reasoning part's id, text provider metadata, two text parts in a row stay two", async () => {
    const thread = await test.store.create({ id: "chat" });
    assertStreamingThread("test", thread);
    const reply = await thread.beginMessage({ role: "assistant", id: "a1" });
    const deltas = new ChunkDeltas();
    for (const chunk of chunks) for (const delta of deltas.deltas(chunk)) await reply.write(delta);
    // Without the finished form: as a lapsed lease lands it, from the deltas joined.
    await reply.fail(new Error("the writer died"));
    const [answer] = await loadChat(await test.store.get("chat"));
    expect(answer?.metadata).toEqual({ skein: { status: "interrupted" } });
    expect(answer?.parts).toEqual([
      { type: "step-start" },
      { type: "reasoning", id: "r1", text: "Thinking." },
      { type: "text", text: "Hello.", providerMetadata: { mock: { item: "t1", done: true } } },
      { type: "text", text: "Bye." },
      { type: "text", text: "Cut" },
      { type: "data-skein", data: { type: "error", message: "the writer died" } },
    ]);
  });
});

import type { ThreadState } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

/** A service thread of `type` that belongs to `owner` (its state's top-level `owner`, as `store.list` reads it). */
async function ownedThread(type: string, owner: string) {
  const thread = await harness.store.create(type);
  await thread.append({ role: "user", text: "my address is 1 Erasure Street" });
  await harness.store.save({ ...(await harness.store.getState(thread.id)), owner } as ThreadState);
  expect((await harness.store.list({ owner })).items.map((item) => item.id)).toContain(thread.id);
  return thread;
}

describe("store.erase with OpenAI threads", () => {
  it("deletes a conversation on the service and says a responses thread's responses stay there", async () => {
    const conversation = await ownedThread("openai.conversation", "alice");
    const responses = await ownedThread("openai.responses", "alice");
    const other = await ownedThread("openai.conversation", "bob");
    const conversationId = conversation.toJSON().conversationId as string;
    expect(harness.emulator.state.conversations.has(conversationId)).toBe(true);

    const report = await harness.store.erase({ owner: "alice" });
    expect(report.threads).toBe(2);
    expect(report.remote).toEqual(
      expect.arrayContaining([
        { id: conversation.id, scopes: [], type: "openai.conversation", owner: "alice", deleted: true },
        {
          id: responses.id,
          scopes: [],
          type: "openai.responses",
          owner: "alice",
          deleted: false,
          reason: expect.stringMatching(/cannot delete the service's copy/),
        },
      ]),
    );
    expect(harness.emulator.state.conversations.has(conversationId)).toBe(false);
    expect((await harness.store.list()).items.map((item) => item.id)).toEqual([other.id]);
    expect(harness.emulator.state.conversations.has(other.toJSON().conversationId as string)).toBe(true);
    expect((await harness.store.erase({ owner: "alice" })).remote).toEqual([]);
  });

  it("keeps a conversation the service failed to delete, reports it, and deletes it when run again", async () => {
    const conversation = await ownedThread("openai.conversation", "alice");
    harness.emulator.inject("conversations.delete", { status: 500, message: "backend down" });
    const failed = await harness.store.erase({ owner: "alice" });
    expect(failed.threads).toBe(0);
    expect(failed.remote).toEqual([
      expect.objectContaining({
        id: conversation.id,
        deleted: false,
        reason: expect.stringMatching(/500|backend down/),
      }),
    ]);
    expect((await harness.store.list({ owner: "alice" })).items).toHaveLength(1);

    const again = await harness.store.erase({ owner: "alice" });
    expect(again.remote).toEqual([expect.objectContaining({ id: conversation.id, deleted: true })]);
    expect(harness.emulator.state.conversations.size).toBe(0);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, conversationWith, type Harness, startHarness, texts } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe("openai.conversation fork (copy)", () => {
  it("forks by copying the items up to a message into a new conversation, in pages", async () => {
    const thread = await conversationWith(harness, 45);
    const messages = await thread.messages();
    const fork = await thread.fork({ at: messages[41]?.id, metadata: { branch: "b" } });
    expect(fork.type).toBe("openai.conversation");
    expect(fork.toJSON().conversationId).not.toBe(thread.toJSON().conversationId);
    expect(fork.metadata).toEqual({ user: "u-7", branch: "b" });
    expect(fork.toJSON().forkedFrom).toEqual({
      threadId: thread.id,
      conversationId: thread.toJSON().conversationId,
      at: messages[41]?.id,
    });
    expect(texts(await fork.messages())).toEqual(texts(messages.slice(0, 42)));
    // 20 items with the conversation, then 20 and 2 more.
    const created = harness.emulator.requestsTo("conversations.create").at(-1);
    expect(created?.body.items).toHaveLength(20);
    expect(
      harness.emulator
        .requestsTo("conversations.items.create")
        .slice(-2)
        .map((request) => (request.body.items as unknown[]).length),
    ).toEqual([20, 2]);
    await fork.append({ role: "user", text: "only in the fork" });
    expect(await thread.messages()).toHaveLength(45);
    expect((await harness.store.get(fork.id)).toJSON()).toEqual(fork.toJSON());
    const whole = await thread.fork();
    expect(await whole.messages()).toHaveLength(45);
    expect((await caught(thread.fork({ at: "msg_missing" }))).name).toBe("PointNotFoundError");
  });

  it('forks at "start" into a new, empty conversation', async () => {
    const thread = await conversationWith(harness, 3);
    const fork = await thread.fork({ at: "start" });
    expect(fork.toJSON().conversationId).not.toBe(thread.toJSON().conversationId);
    expect(await fork.messages()).toEqual([]);
    await fork.append({ role: "user", text: "only in the fork" });
    expect(texts(await fork.messages())).toEqual(["only in the fork"]);
    expect(await thread.messages()).toHaveLength(3);
  });

  it("deletes a half-made fork when copying fails", async () => {
    const thread = await conversationWith(harness, 30);
    const before = harness.emulator.state.conversations.size;
    harness.emulator.inject("conversations.items.create", { status: 500 });
    const error = await caught(thread.fork());
    expect(error.name).toBe("OpenAIUnavailableError");
    expect(harness.emulator.state.conversations.size).toBe(before);
  });
});

import {
  type Message,
  openStore,
  PointNotFoundError,
  ThreadNotFoundError,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import {
  FoundryConfigurationError,
  FoundryConversationThread,
  FoundryNotFoundError,
  FoundryUnavailableError,
} from "../src/index.js";
import { REMOTE_CAPABILITIES } from "../src/remote-thread.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

async function conversationWith(count: number) {
  const store = await fixture.store();
  const thread = await store.create("foundry.conversation", { agentName: "echo", metadata: { user: "u-7" } });
  const inputs = Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
    text: `message ${index}`,
  }));
  const stored = inputs.length ? await thread.append(inputs) : [];
  return { store, thread, stored };
}

const texts = (messages: Message[]) =>
  messages.map((message) => (message.contents[0] as { text?: string }).text);

describe("foundry.conversation", () => {
  test("is created through the store, holds ids only, and binds again from its JSON", async () => {
    const { store, thread } = await conversationWith(2);
    const json = JSON.parse(JSON.stringify(thread));
    expect(json).toMatchObject({
      $type: "foundry.conversation",
      $v: 1,
      agentName: "echo",
      metadata: { user: "u-7" },
    });
    expect(json.conversationId).toMatch(/^conv_/);
    expect(json.projectEndpoint).toBe(fixture.emulator.endpoint);
    expect(thread.capabilities).toEqual(REMOTE_CAPABILITIES);

    const otherStore = await openStore("memory:", { adapters: [fixture.adapter()] });
    const again = await otherStore.open(json);
    expect(again).toBeInstanceOf(FoundryConversationThread);
    await again.append({ role: "user", text: "from the copy" });
    expect(texts(await again.messages())).toEqual(["message 0", "message 1", "from the copy"]);
    expect(texts(await (await store.get(thread.id)).messages())).toEqual([
      "message 0",
      "message 1",
      "from the copy",
    ]);
  });

  test("appends in batches of 20 items and reads more than one page, oldest first", async () => {
    const { thread, stored } = await conversationWith(230);
    expect(stored).toHaveLength(230);
    expect(stored[0]?.id).toMatch(/^msg_/);
    const before = fixture.emulator.http.requests.length;
    const all = await thread.messages();
    expect(texts(all)).toEqual(Array.from({ length: 230 }, (_, index) => `message ${index}`));
    expect(all.map((message) => message.id)).toEqual(stored.map((message) => message.id));
    const lists = fixture.emulator.http.requests
      .slice(before)
      .filter((request) => request.path.endsWith("/items"));
    expect(lists).toHaveLength(3);
    expect(lists.map((request) => request.query.get("order"))).toEqual(["asc", "asc", "asc"]);
    expect(lists[1]?.query.get("after")).toBe(all[99]?.id);
  });

  test("reads the last k newest first, after a message, and up to a limit", async () => {
    const { thread, stored } = await conversationWith(150);
    expect(texts(await thread.messages({ last: 3 }))).toEqual(["message 147", "message 148", "message 149"]);
    expect(texts(await thread.messages({ last: 120 }))).toHaveLength(120);
    const afterTen = await thread.messages({ after: stored[9]?.id, limit: 2 });
    expect(texts(afterTen)).toEqual(["message 10", "message 11"]);
    expect(texts(await thread.messages({ after: stored[146]?.id, last: 10 }))).toEqual([
      "message 147",
      "message 148",
      "message 149",
    ]);
    await expect(thread.messages({ after: "msg_missing" })).rejects.toBeInstanceOf(PointNotFoundError);
  });

  test("pages backwards with { before, limit } across pages, as local threads do", async () => {
    const { thread, stored } = await conversationWith(150);
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, index) => `message ${from + index}`);
    expect(texts(await thread.messages({ before: stored[140]?.id, limit: 3 }))).toEqual(range(137, 140));
    expect(texts(await thread.messages({ before: stored[130]?.id, limit: 120 }))).toEqual(range(10, 130));
    expect(texts(await thread.messages({ before: stored[2]?.id }))).toEqual(range(0, 2));
    expect(await thread.messages({ before: stored[0]?.id })).toEqual([]);
    expect(texts(await thread.messages({ after: stored[3]?.id, before: stored[9]?.id, limit: 2 }))).toEqual(
      range(4, 6),
    );
    expect(texts(await thread.messages({ after: stored[3]?.id, before: stored[9]?.id, last: 2 }))).toEqual(
      range(7, 9),
    );
    expect(await thread.messages({ after: stored[9]?.id, before: stored[3]?.id })).toEqual([]);
    await expect(thread.messages({ before: "msg_missing" })).rejects.toBeInstanceOf(PointNotFoundError);
  });

  test("finds one message by id, or undefined", async () => {
    const { thread } = await conversationWith(3);
    const all = await thread.messages();
    expect(await thread.message?.(all[1]?.id as string)).toEqual(all[1]);
    expect(await thread.message?.("msg_missing")).toBeUndefined();
  });

  test('forks at "start" into a new, empty conversation', async () => {
    const { thread } = await conversationWith(3);
    const fork = await thread.fork({ at: "start" });
    expect(fork.id).not.toBe(thread.id);
    expect(await fork.messages()).toEqual([]);
    expect(await thread.messages()).toHaveLength(3);
  });

  test("keeps calls, results and media through the conversation's item shapes", async () => {
    const { thread } = await conversationWith(0);
    const stored = await thread.append([
      {
        role: "user",
        contents: [
          { type: "text", text: "What is in this picture?" },
          { type: "uri", uri: "https://example.test/cat.png", mediaType: "image/png" },
        ],
      },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "call_1", name: "look", arguments: { zoom: 2 } }],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "call_1", result: { seen: "a cat" } }] },
    ]);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    const read = await thread.messages();
    expect(read[0]?.contents).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "uri", uri: "https://example.test/cat.png", mediaType: "image/*" },
    ]);
    expect(read[1]?.contents).toEqual([
      { type: "function_call", callId: "call_1", name: "look", arguments: { zoom: 2 } },
    ]);
    expect(read[2]?.contents).toEqual([
      { type: "function_result", callId: "call_1", result: '{"seen":"a cat"}' },
    ]);
  });

  test("refuses contents with no item form before writing anything", async () => {
    const { thread } = await conversationWith(1);
    const attempt = thread.append([
      { role: "user", text: "fine" },
      { role: "assistant", contents: [{ type: "file", fileId: "file_1", mediaType: "image/png" }] },
    ]);
    await expect(attempt).rejects.toBeInstanceOf(UnsupportedOperationError);
    expect(await thread.messages()).toHaveLength(1);
  });

  test("forks by copying a prefix, page by page, into a new conversation", async () => {
    const { store, thread, stored } = await conversationWith(130);
    const fork = await thread.fork({ at: stored[109]?.id, metadata: { branch: "b" } });
    expect(fork.id).not.toBe(thread.id);
    expect(fork.toJSON()).toMatchObject({ agentName: "echo", metadata: { user: "u-7", branch: "b" } });
    expect(texts(await fork.messages())).toEqual(texts(stored.slice(0, 110)));
    expect(await thread.messages()).toHaveLength(130);
    expect((await store.get(fork.id)).toJSON()).toEqual(fork.toJSON());
    await expect(thread.fork({ at: "msg_missing" })).rejects.toBeInstanceOf(PointNotFoundError);
  });

  test("a fork that fails part way deletes its partial copy", async () => {
    const { thread } = await conversationWith(45);
    const conversations = fixture.emulator.conversations.conversations.size;
    // 45 messages copy in three batches of items; the service refuses the second.
    fixture.emulator.http.inject({ method: "POST", path: /\/items$/, status: 500, after: 1 });
    await expect(thread.fork()).rejects.toBeInstanceOf(FoundryUnavailableError);
    expect(fixture.emulator.conversations.conversations.size).toBe(conversations);
  });

  test("has no checkpoints, rollback or time travel, and says so", async () => {
    const { thread, stored } = await conversationWith(3);
    const target = stored[0]?.id as string;
    for (const attempt of [
      thread.checkpoint("x"),
      thread.rollback(target),
      thread.at(target),
      thread.history(),
    ]) {
      const error = await attempt.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(UnsupportedOperationError);
      expect((error as UnsupportedOperationError).type).toBe("foundry.conversation");
      expect((error as Error).message).toMatch(
        /^\[adapter-foundry\] Thread type "foundry.conversation" does not support/,
      );
    }
    await expect(thread.append({ role: "user", text: "x" }, { ifRevision: 0 })).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
    // Nothing records an operation id, so a retry would append again: refused, not ignored.
    await expect(thread.append({ role: "user", text: "x" }, { operationId: "op-1" })).rejects.toMatchObject({
      type: "foundry.conversation",
      capability: "operationId",
    });
    await expect(thread.rollback("start")).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(thread.at("start")).rejects.toBeInstanceOf(UnsupportedOperationError);
    expect(await thread.messages()).toHaveLength(3);
  });

  test("updates metadata in the store and deletes the conversation with its state", async () => {
    const { store, thread } = await conversationWith(1);
    await thread.update({ metadata: { user: "u-8" } });
    expect((await store.get(thread.id)).metadata).toEqual({ user: "u-8" });
    await thread.refresh();
    const conversationId = (thread as FoundryConversationThread).conversationId;
    await thread.delete();
    expect(fixture.emulator.conversations.conversations.has(conversationId)).toBe(false);
    await expect(store.get(thread.id)).rejects.toBeInstanceOf(ThreadNotFoundError);
    const gone = thread.messages();
    await expect(gone).rejects.toBeInstanceOf(FoundryNotFoundError);
    await expect(gone).rejects.toBeInstanceOf(ThreadNotFoundError);
    await thread.delete(); // already gone is fine
  });

  test("views keep system messages and whole tool rounds", async () => {
    const { thread } = await conversationWith(0);
    await thread.append([
      { role: "system", text: "be brief" },
      { role: "user", text: "one" },
      { role: "assistant", contents: [{ type: "function_call", callId: "c1", name: "f", arguments: {} }] },
      { role: "tool", contents: [{ type: "function_result", callId: "c1", result: "ok" }] },
      { role: "assistant", text: "done" },
    ]);
    const view = await thread.view({ maxMessages: 3 });
    expect(view.map((message) => message.role)).toEqual(["system", "assistant"]);
    const wider = await thread.view({ maxMessages: 4 });
    expect(wider.map((message) => message.role)).toEqual(["system", "assistant", "tool", "assistant"]);
  });

  test("adopts an existing conversation and refuses another project's state", async () => {
    const { thread } = await conversationWith(2);
    const store = await fixture.store();
    const conversationId = (thread as FoundryConversationThread).conversationId;
    const adopted = await store.create("foundry.conversation", {
      agentName: "echo",
      conversationId,
      id: "support-42",
    });
    expect(adopted.id).toBe("support-42");
    expect(await adopted.messages()).toHaveLength(2);
    const foreign = {
      ...adopted.toJSON(),
      projectEndpoint: "https://elsewhere.services.ai.azure.com/api/projects/p",
    };
    await expect(store.open(foreign)).rejects.toBeInstanceOf(FoundryConfigurationError);
    await expect(store.create("foundry.conversation", {})).rejects.toThrow(/needs agentName/);
  });
});

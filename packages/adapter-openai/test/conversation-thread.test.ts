import type { Message } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAIConversationThread } from "../src/index.js";
import { caught, conversationWith, countRequests, type Harness, startHarness, texts } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

describe("openai.conversation", () => {
  it("is created through the store with a conversation on the service and its state saved", async () => {
    const thread = await harness.store.create("openai.conversation", { metadata: { user: "u-7" } });
    const state = thread.toJSON();
    expect(state).toMatchObject({
      $type: "openai.conversation",
      $v: 1,
      metadata: { user: "u-7" },
      context: {},
    });
    expect(state.conversationId).toMatch(/^conv_/);
    expect(state.id).toBe(state.conversationId);
    expect(harness.emulator.state.conversations.has(state.conversationId as string)).toBe(true);
    expect((await harness.store.get(thread.id)).toJSON()).toEqual(state);
    expect(thread.capabilities).toEqual({
      fork: "copy",
      checkpoints: false,
      rollback: false,
      timeTravel: false,
      views: true,
      revisions: false,
      remoteDelete: true,
    });
  });

  it("appends messages as message, function_call and function_call_output items and reads them back", async () => {
    const thread = await harness.store.create("openai.conversation");
    const stored = await thread.append([
      { role: "system", text: "Be brief." },
      { role: "user", text: "What is the weather in Paris?" },
      {
        role: "assistant",
        contents: [
          { type: "text", text: "Let me look." },
          { type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Paris" } },
        ],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "call_1", result: { celsius: 21 } }] },
    ]);
    // One message per item: the assistant's text and its call are two items on the service.
    expect(stored.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "assistant",
      "tool",
    ]);
    const items = harness.emulator.state.conversation(thread.toJSON().conversationId as string).items;
    expect(items.map((item) => item.type)).toEqual([
      "message",
      "message",
      "message",
      "function_call",
      "function_call_output",
    ]);
    expect(items[2]).toMatchObject({
      role: "assistant",
      content: [{ type: "output_text", text: "Let me look." }],
    });
    expect(items[1]).toMatchObject({ role: "user", content: [{ type: "input_text" }] });
    expect(items[3]).toMatchObject({ call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' });
    expect(items[4]).toMatchObject({ call_id: "call_1", output: '{"celsius":21}' });
    const messages = await thread.messages();
    expect(messages).toEqual(stored);
    expect(messages.map((message) => message.id)).toEqual(items.map((item) => item.id));
    expect(messages[3]?.contents[0]).toEqual({
      type: "function_call",
      callId: "call_1",
      name: "weather",
      arguments: { city: "Paris" },
    });
    expect(messages[4]?.contents[0]).toEqual({
      type: "function_result",
      callId: "call_1",
      result: { celsius: 21 },
    });
  });

  it("keeps items skein does not know as openai.item contents and writes them back unchanged", async () => {
    const thread = await harness.store.create("openai.conversation");
    const conversationId = thread.toJSON().conversationId as string;
    const webSearch = {
      id: "ws_1",
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: "tea" },
    };
    harness.emulator.state.conversation(conversationId).items.push(webSearch);
    const [message] = await thread.messages();
    expect(message?.contents).toEqual([{ type: "openai.item", item: webSearch }]);
    const copy = await harness.store.create("openai.conversation");
    await copy.append({ role: "assistant", contents: message?.contents ?? [] });
    const copied = harness.emulator.state.conversation(copy.toJSON().conversationId as string).items;
    expect(copied).toEqual([webSearch]);
  });

  it("refuses contents the service cannot hold before writing anything", async () => {
    const thread = await harness.store.create("openai.conversation");
    const error = await caught(
      thread.append([
        { role: "user", text: "fine" },
        { role: "user", contents: [{ type: "acme.widget", size: 3 }] },
      ]),
    );
    expect(error.name).toBe("UnsupportedOperationError");
    expect(error.message).toMatch(/^\[adapter-openai\] .*acme\.widget/);
    expect(await thread.messages()).toEqual([]);
  });

  it("round-trips through JSON to a working thread", async () => {
    const thread = await conversationWith(harness, 3);
    const json = JSON.stringify(thread);
    const again = await harness.store.open(JSON.parse(json));
    expect(again).toBeInstanceOf(OpenAIConversationThread);
    expect(JSON.stringify(again)).toBe(json);
    await again.append({ role: "user", text: "one more" });
    expect(texts(await thread.messages())).toEqual(["message 0", "message 1", "message 2", "one more"]);
  });

  it("reads 250 items in order, 100 per request, ascending with after cursors", async () => {
    const thread = await conversationWith(harness, 250);
    // 250 items went in 13 requests of at most 20.
    expect(harness.emulator.requestsTo("conversations.items.create")).toHaveLength(13);
    let messages: Message[] = [];
    const requests = await countRequests(harness, async () => {
      messages = await thread.messages();
    });
    expect(requests).toBe(3);
    expect(texts(messages)).toEqual(Array.from({ length: 250 }, (_, index) => `message ${index}`));
    const lists = harness.emulator.requestsTo("conversations.items.list");
    expect(lists.map((request) => request.query.order)).toEqual(["asc", "asc", "asc"]);
    expect(lists[1]?.query.after).toBe(messages[99]?.id);
    expect(lists[2]?.query.after).toBe(messages[199]?.id);
  });

  it("is read with an explicit order: the service's default is newest first", async () => {
    const thread = await conversationWith(harness, 3);
    const page = await harness.client.conversations.items.list(thread.toJSON().conversationId as string);
    expect(page.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]?.text)).toEqual([
      "message 2",
      "message 1",
      "message 0",
    ]);
    expect(texts(await thread.messages())).toEqual(["message 0", "message 1", "message 2"]);
  });

  it("reads the last messages newest first without reading the rest", async () => {
    const thread = await conversationWith(harness, 250);
    let last: Message[] = [];
    const requests = await countRequests(harness, async () => {
      last = await thread.messages({ last: 3 });
    });
    expect(requests).toBe(1);
    expect(texts(last)).toEqual(["message 247", "message 248", "message 249"]);
    expect(harness.emulator.requestsTo("conversations.items.list").at(-1)?.query).toMatchObject({
      order: "desc",
      limit: "3",
    });
    const all = await thread.messages();
    const after = await thread.messages({ after: all[245]?.id, limit: 2 });
    expect(texts(after)).toEqual(["message 246", "message 247"]);
    expect(texts(await thread.messages({ after: all[10]?.id, last: 2 }))).toEqual([
      "message 248",
      "message 249",
    ]);
    expect(await thread.messages({ after: all[249]?.id })).toEqual([]);
    expect((await caught(thread.messages({ after: "msg_missing" }))).name).toBe("PointNotFoundError");
    expect((await caught(thread.messages({ after: "msg_missing", last: 2 }))).name).toBe(
      "PointNotFoundError",
    );
  });

  it("pages backwards with { before, limit } from that item as the cursor, and finds one by id", async () => {
    const thread = await conversationWith(harness, 250);
    const all = await thread.messages();
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, index) => `message ${from + index}`);
    let page: Message[] = [];
    const requests = await countRequests(harness, async () => {
      page = await thread.messages({ before: all[240]?.id, limit: 3 });
    });
    expect(requests).toBe(1);
    expect(texts(page)).toEqual(range(237, 240));
    expect(harness.emulator.requestsTo("conversations.items.list").at(-1)?.query).toMatchObject({
      order: "desc",
      after: all[240]?.id,
      limit: "3",
    });
    expect(texts(await thread.messages({ before: all[230]?.id, limit: 120 }))).toEqual(range(110, 230));
    expect(texts(await thread.messages({ before: all[2]?.id }))).toEqual(range(0, 2));
    expect(await thread.messages({ before: all[0]?.id, limit: 5 })).toEqual([]);
    expect(texts(await thread.messages({ after: all[3]?.id, before: all[9]?.id, limit: 2 }))).toEqual(
      range(4, 6),
    );
    expect(texts(await thread.messages({ after: all[3]?.id, before: all[9]?.id, last: 2 }))).toEqual(
      range(7, 9),
    );
    expect(await thread.messages({ after: all[9]?.id, before: all[3]?.id })).toEqual([]);
    expect(await thread.messages({ after: all[9]?.id, before: all[9]?.id })).toEqual([]);
    let found: Message | undefined;
    expect(
      await countRequests(harness, async () => {
        found = await (thread as OpenAIConversationThread).message(all[120]?.id as string);
      }),
    ).toBe(1);
    expect(found).toEqual(all[120]);
    expect(await (thread as OpenAIConversationThread).message("msg_missing")).toBeUndefined();
    expect((await caught(thread.messages({ before: "msg_missing" }))).name).toBe("PointNotFoundError");
    expect((await caught(thread.messages({ before: "msg_missing", limit: 0 }))).name).toBe(
      "PointNotFoundError",
    );
    expect((await caught(thread.messages({ after: "msg_missing", before: all[9]?.id }))).name).toBe(
      "PointNotFoundError",
    );
  });

  it("gives views that keep tool calls whole and the opening system message", async () => {
    const thread = await harness.store.create("openai.conversation");
    await thread.append([
      { role: "system", text: "Be brief." },
      ...Array.from({ length: 30 }, (_, index) => ({ role: "user" as const, text: `filler ${index}` })),
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "c1", name: "weather", arguments: {} }],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "c1", result: "sunny" }] },
    ]);
    // System messages count against maxMessages, as in local threads.
    const view = await thread.view({ maxMessages: 3 });
    expect(texts(view)).toEqual(["Be brief.", "function_call", "function_result"]);
    const cut = await thread.view({ maxMessages: 2 });
    // The result alone would lack its call: the view keeps neither.
    expect(texts(cut)).toEqual(["Be brief."]);
    expect(texts(await thread.view({ maxMessages: 3, keepSystem: false }))).toEqual([
      "filler 29",
      "function_call",
      "function_result",
    ]);
  });

  it("treats a re-sent message id as a no-op when equal and a conflict when not", async () => {
    const thread = await conversationWith(harness, 2);
    const [first] = await thread.messages();
    const again = await thread.append(first as Message);
    expect(again).toEqual([first]);
    expect(await thread.messages()).toHaveLength(2);
    const conflict = await caught(
      thread.append({ ...(first as Message), contents: [{ type: "text", text: "other" }] }),
    );
    expect(conflict.name).toBe("ConflictError");
    expect(await thread.messages()).toHaveLength(2);
  });

  it("reports an append that needed several requests and failed part way, with what landed", async () => {
    const thread = await harness.store.create("openai.conversation");
    harness.emulator.inject("conversations.items.create", { skip: 1, status: 500 });
    const inputs = Array.from({ length: 30 }, (_, index) => ({ role: "user" as const, text: `m${index}` }));
    const error = await caught(thread.append(inputs));
    expect(error.name).toBe("PartialAppendError");
    expect(error).toMatchObject({ notAppended: 10 });
    expect((error as unknown as { appended: Message[] }).appended).toHaveLength(20);
    expect(error.cause).toMatchObject({ name: "OpenAIUnavailableError" });
    expect(await thread.messages()).toEqual((error as unknown as { appended: Message[] }).appended);
  });

  it("cannot roll back, checkpoint or travel in time, and says so", async () => {
    const thread = await conversationWith(harness, 2);
    const [first] = await thread.messages();
    for (const attempt of [
      thread.rollback(first?.id as string),
      thread.checkpoint("c"),
      thread.at(first?.id as string),
      thread.append({ role: "user", text: "x" }, { ifRevision: 1 }),
      // Nothing records an operation id, so a retry would append again: refused, not ignored.
      thread.append({ role: "user", text: "x" }, { operationId: "op-1" }),
      thread.rollback("start"),
      thread.at("start"),
    ]) {
      const error = await caught(attempt);
      expect(error.name).toBe("UnsupportedOperationError");
      expect(error.message).toMatch(
        /^\[adapter-openai\] Thread type "openai\.conversation" does not support/,
      );
    }
    expect(await thread.messages()).toHaveLength(2);
    expect(await thread.history()).toEqual([]);
  });

  it("updates metadata and context in the store, and refreshes them", async () => {
    const thread = await conversationWith(harness, 1);
    await thread.update({ metadata: { user: "u-8" }, context: { memory: { facts: ["likes tea"] } } });
    const again = await harness.store.get(thread.id);
    expect(again.metadata).toEqual({ user: "u-8" });
    expect(again.context).toEqual({ memory: { facts: ["likes tea"] } });
    await again.update({ metadata: { user: "u-9" } });
    await thread.refresh();
    expect(thread.metadata).toEqual({ user: "u-9" });
  });

  it("adopts an existing conversation and deletes it with the thread", async () => {
    const existing = await harness.client.conversations.create({});
    const thread = await harness.store.create("openai.conversation", {
      id: "support-42",
      conversationId: existing.id,
      messages: [{ role: "user", text: "hello" }],
    });
    expect(thread.id).toBe("support-42");
    expect(texts(await thread.messages())).toEqual(["hello"]);
    await thread.delete();
    expect(harness.emulator.state.conversations.has(existing.id)).toBe(false);
    expect((await caught(harness.store.get("support-42"))).name).toBe("ThreadNotFoundError");
    expect(
      (await caught(harness.store.create("openai.conversation", { conversationId: "conv_missing" }))).name,
    ).toBe("OpenAINotFoundError");
  });
});

import { freshStore, type TestStore } from "@skein/test-support/fresh-store";
import { type Message, type Thread, UnsupportedOperationError } from "@skein/thread-core";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatArgumentError, loadChat, persistChat, resumeChat } from "../src/index.js";
import { startChatServer } from "./chat-http-server.js";
import { slowModel } from "./slow-model.js";

let test: TestStore;
beforeEach(async () => {
  test = await freshStore("fs");
});
afterEach(() => test.dispose());

const question: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] };

/** The message the AI SDK's own client code builds from a UI message stream. */
async function assembled(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

/** The chat's last skein message, read as another process would. */
async function lastStored(chatId: string): Promise<(Message & { status?: string }) | undefined> {
  const [last] = await (await test.store.get(chatId)).messages({ last: 1 });
  return last;
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

function send(transport: DefaultChatTransport<UIMessage>, chatId: string, abortSignal?: AbortSignal) {
  return transport.sendMessages({
    trigger: "submit-message",
    chatId,
    messageId: undefined,
    messages: [question],
    abortSignal,
  });
}

describe("persistChat streams the reply into the thread; resumeChat gives it to another client", () => {
  it("a client that joins mid-stream rebuilds the same message as the one that asked, and the thread holds it", async () => {
    const server = await startChatServer(test.store, () => slowModel({ words: 60, delayMs: 10 }));
    try {
      const transport = new DefaultChatTransport<UIMessage>({ api: server.url });
      const asked = assembled(await send(transport, "chat-1"));
      // Joins once the reply is in the thread, past its tool call, while it still streams.
      await until(async () => {
        const last = await lastStored("chat-1");
        return (
          last?.status === "streaming" && last.contents.some((content) => content.type === "function_result")
        );
      });
      const joinedStream = await transport.reconnectToStream({ chatId: "chat-1" });
      if (!joinedStream) throw new Error("resumeChat answered 204 while the reply streamed");
      const [original, joined] = await Promise.all([asked, assembled(joinedStream)]);

      expect(original?.parts.map((part) => part.type)).toEqual([
        "step-start",
        "reasoning",
        "text",
        "text",
        "tool-weather",
        "step-start",
        "text",
      ]);
      expect(joined).toEqual(original);
      await until(async () => (await lastStored("chat-1"))?.status === undefined);
      expect(await loadChat(await test.store.get("chat-1"))).toEqual([question, original]);
      // Nothing streams now: 204, which the transport gives as null.
      expect(await transport.reconnectToStream({ chatId: "chat-1" })).toBeNull();
      expect(await transport.reconnectToStream({ chatId: "no-such-chat" })).toBeNull();
    } finally {
      await server.close();
    }
  });

  it("a client that goes away mid-stream leaves the reply streaming into the thread to its end", async () => {
    const server = await startChatServer(test.store, () => slowModel({ words: 40, delayMs: 10 }));
    try {
      const transport = new DefaultChatTransport<UIMessage>({ api: server.url });
      const leave = new AbortController();
      const stream = await send(transport, "chat-2", leave.signal);
      const reader = stream.getReader();
      await until(async () => (await lastStored("chat-2"))?.status === "streaming");
      leave.abort();
      await reader.cancel().catch(() => undefined);
      await until(async () => (await lastStored("chat-2"))?.status === undefined);
      const [, answer] = await loadChat(await test.store.get("chat-2"));
      expect(answer?.parts.at(-1)).toEqual({
        type: "text",
        text: expect.stringContaining("word39 "),
        state: "done",
      });
      expect(answer?.metadata).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("resumeChat refuses a missing store or chat id with a ChatArgumentError", async () => {
    for (const options of [{ chatId: "chat" }, { store: test.store, chatId: "" }, { store: test.store }]) {
      const error = await resumeChat(options as never).catch((caught: unknown) => caught);
      expect(ChatArgumentError.isInstance(error)).toBe(true);
    }
  });

  it("refuse a thread replies cannot stream into, with a typed error naming beginMessage", async () => {
    const workflow = (await test.store.create("workflow", { threads: [] })) as Thread;
    const refused = await persistChat({ thread: workflow, messages: [question] }).catch(
      (error: unknown) => error,
    );
    expect(UnsupportedOperationError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ capability: "beginMessage", type: "workflow" });
    const resumed = await resumeChat({ store: test.store, chatId: workflow.id }).catch(
      (error: unknown) => error,
    );
    expect(UnsupportedOperationError.isInstance(resumed)).toBe(true);
  });
});

import { freshStore, type TestStore } from "@skein/test-support/fresh-store";
import { openStore } from "@skein/thread-core";
import { convertToModelMessages, jsonSchema, stepCountIs, streamText, tool, type UIMessage } from "ai";
import type { MockLanguageModelV3 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadChat, persistChat, saveChat, toModelMessages, toUIMessages } from "../src/index.js";
import { answering, callingThenAnswering, stalling } from "./mock-model.js";

const png = Buffer.from("a tiny png").toString("base64");

/** A chat as a client holds it after a few turns: files, reasoning, tool calls in two steps, an error. */
const chat: UIMessage[] = [
  { id: "s1", role: "system", parts: [{ type: "text", text: "Answer briefly." }] },
  {
    id: "u1",
    role: "user",
    parts: [
      { type: "text", text: "What is in this picture, and the weather?" },
      { type: "file", mediaType: "image/png", url: `data:image/png;base64,${png}`, filename: "cat.png" },
    ],
  },
  {
    id: "a1",
    role: "assistant",
    metadata: { model: "mock" },
    parts: [
      { type: "step-start" },
      { type: "reasoning", text: "Two questions.", state: "done" },
      {
        type: "tool-weather",
        toolCallId: "c1",
        state: "output-available",
        input: { city: "Paris" },
        output: { celsius: 21 },
      },
      { type: "step-start" },
      {
        type: "tool-weather",
        toolCallId: "c2",
        state: "output-error",
        input: { city: "Atlantis" },
        errorText: "unknown city",
      },
      { type: "text", text: "A cat; 21 °C in Paris.", state: "done" },
      { type: "source-url", sourceId: "src-1", url: "https://example.com/weather" },
    ],
  },
  { id: "u2", role: "user", parts: [{ type: "text", text: "Thanks!" }] },
];

/** The prompt a mock model is sent when `streamText` runs on `messages`. */
async function promptFor(messages: Awaited<ReturnType<typeof convertToModelMessages>>): Promise<unknown> {
  const model = answering("ok");
  await streamText({ model, messages, allowSystemInMessages: true }).consumeStream();
  return (model as MockLanguageModelV3).doStreamCalls[0]?.prompt;
}

let test: TestStore;
beforeEach(async () => {
  test = await freshStore("fs");
});
afterEach(() => test.dispose());

describe("streamText on a chat kept in a thread", () => {
  it("sends the model exactly the prompt the SDK builds from the original messages", async () => {
    const thread = await test.store.create();
    await saveChat(thread, chat);
    const expected = await promptFor(await convertToModelMessages(chat));

    // Another store on the same files, as another process would open it.
    const other = await openStore(test.url);
    const again = await other.get(thread.id);
    expect(await promptFor(await convertToModelMessages(await loadChat(again)))).toEqual(expected);
    expect(await promptFor(await toModelMessages(await again.messages()))).toEqual(expected);
    await other.close();
  });

  it("saves the answer under a sortable id through persistChat's onFinish", async () => {
    const thread = await test.store.create();
    const messages = chat.slice(0, 2);
    const options = await persistChat({ thread, messages });
    expect(options.originalMessages).toBe(messages);
    const finished = new Promise<void>((resolve) => {
      const onFinish = options.onFinish;
      options.onFinish = async (event) => {
        await onFinish(event);
        resolve();
      };
    });
    const response = streamText({
      model: answering("A cat."),
      messages: await convertToModelMessages(messages),
      allowSystemInMessages: true,
    }).toUIMessageStreamResponse(options);
    await response.text();
    await finished;
    const saved = await loadChat(thread);
    expect(saved.slice(0, 2)).toEqual(messages);
    expect(saved[2]).toMatchObject({
      role: "assistant",
      parts: [{ type: "step-start" }, { type: "text", text: "A cat." }],
    });
    expect(saved[2]?.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("keeps what the stream sent, interrupted, when it is aborted", async () => {
    const thread = await test.store.create();
    const messages = chat.slice(0, 2);
    const options = await persistChat({ thread, messages });
    const finished = new Promise<boolean>((resolve) => {
      const onFinish = options.onFinish;
      options.onFinish = async (event) => {
        await onFinish(event);
        resolve(event.isAborted);
      };
    });
    const { model, started } = stalling();
    const abort = new AbortController();
    const response = streamText({
      model,
      messages: await convertToModelMessages(messages),
      abortSignal: abort.signal,
      allowSystemInMessages: true,
    }).toUIMessageStreamResponse(options);
    // Read until the client has the first part whole and the second begun, then stop the stream.
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let seen = "";
    while (!seen.includes("The second, cut")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before it was aborted");
      seen += value;
    }
    await started;
    abort.abort();
    while (!(await reader.read()).done) {}
    expect(await finished).toBe(true);
    const saved = await loadChat(thread);
    expect(saved.slice(0, 2)).toEqual(messages);
    // Everything the stream sent is kept, the part it cut included; the reply says it was interrupted, and why.
    expect(saved[2]?.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "The first part.", state: "done" },
      { type: "text", text: "The second, cut", state: "done" },
      { type: "data-skein", data: { type: "error", message: "the stream was aborted" } },
    ]);
    expect(saved[2]?.metadata).toEqual({ skein: { status: "interrupted" } });
  });

  it("carries a tool approval across two requests, each on its own store over the same files", async () => {
    const tools = {
      remove: tool({
        inputSchema: jsonSchema<{ path: string }>({
          type: "object",
          properties: { path: { type: "string" } },
        }),
        needsApproval: true,
        execute: async ({ path }) => ({ removed: path }),
      }),
    };
    /** One request of a route: its own store, the chat the client holds, the response read to its end. */
    const request = async (messages: UIMessage[]) => {
      const store = await openStore(test.url);
      const thread = await store.get("chat-approval");
      const result = streamText({
        model: callingThenAnswering("remove", { path: "/tmp/a" }),
        messages: await convertToModelMessages(messages, { tools }),
        tools,
        stopWhen: stepCountIs(3),
      });
      await result.toUIMessageStreamResponse(await persistChat({ thread, messages })).text();
      const saved = await loadChat(await store.get("chat-approval"));
      await store.close();
      return saved;
    };
    await test.store.create({ id: "chat-approval" });

    const asked = await request([
      { id: "u1", role: "user", parts: [{ type: "text", text: "remove /tmp/a" }] },
    ]);
    const part = asked[1]?.parts.find((candidate) => candidate.type === "tool-remove");
    expect(part).toMatchObject({ state: "approval-requested", input: { path: "/tmp/a" } });

    const approved = structuredClone(asked);
    const approving = approved[1]?.parts.find((candidate) => candidate.type === "tool-remove") as {
      state: string;
      approval: { id: string; approved?: boolean };
    };
    approving.state = "approval-responded";
    approving.approval.approved = true;
    const done = await request(approved);

    expect(done.map((message) => message.id)).toEqual(asked.map((message) => message.id));
    expect(done[1]?.parts.find((candidate) => candidate.type === "tool-remove")).toMatchObject({
      state: "output-available",
      output: { removed: "/tmp/a" },
      approval: { approved: true },
    });
    expect(done[1]?.parts.at(-1)).toMatchObject({ type: "text", text: 'Done: {"removed":"/tmp/a"}' });
    // The asked-for version of the message stays in the thread's history.
    const thread = await test.store.get("chat-approval");
    const [rollback] = await thread.history();
    if (rollback?.kind !== "rollback") throw new Error("expected a rollback event");
    expect(toUIMessages(await (await thread.at(rollback.from)).messages())).toEqual(asked);
  });
});

import { openaiAdapter, openaiRunner } from "@skein/adapter-openai";
import { type Message, openStore, type ThreadStore, UnsupportedOperationError } from "@skein/thread-core";
import { validateUIMessages } from "ai";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenAIEmulator, startEmulator } from "../../adapter-openai/test/emulator/emulator.js";
import { loadChat, saveChat } from "../src/index.js";

const weatherTool = {
  type: "function" as const,
  name: "weather",
  description: "The weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

let emulator: OpenAIEmulator;
let store: ThreadStore;
let runner: ReturnType<typeof openaiRunner>;
beforeEach(async () => {
  emulator = await startEmulator();
  const client = new OpenAI({ apiKey: emulator.apiKey, baseURL: `${emulator.url}/v1`, maxRetries: 0 });
  runner = openaiRunner({ client, model: "gpt-test", tools: [weatherTool] });
  store = await openStore("memory:");
});
afterEach(async () => {
  await store.close();
  await emulator.close();
});

describe("a chat openaiRunner wrote", () => {
  it("reads as valid UI messages, the tool message folded into the call's message", async () => {
    const thread = await store.create();
    await thread.append({ role: "user", text: "What is the weather in Paris?" });
    const [asked] = await runner.run(thread);
    const callId = (asked!.contents[0] as { callId: string }).callId;
    await thread.append({
      role: "tool",
      contents: [{ type: "function_result", callId, result: { celsius: 21 } }],
    });
    const [answer] = await runner.run(thread);

    const chat = await loadChat(thread);
    await expect(validateUIMessages({ messages: chat })).resolves.toEqual(chat);
    // The run's call, the tool message and the answer are one assistant turn.
    expect(chat.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(chat[1]?.id).toBe(asked?.id);
    const parts = chat[1]?.parts ?? [];
    expect(parts.find((part) => part.type === "tool-weather")).toEqual({
      type: "tool-weather",
      toolCallId: callId,
      state: "output-available",
      input: { city: "Paris" },
      output: { celsius: 21 },
    });
    const answerAt = parts.findIndex((part) => part.type === "text");
    expect(parts[answerAt - 1]).toEqual({ type: "step-start" });
    expect(parts[answerAt]).toEqual({ type: "text", text: 'The tool answered: {"celsius":21}' });
    // Each run's usage record has no UI part: it travels as a data-skein part, unchanged.
    expect(parts.at(-1)).toMatchObject({
      type: "data-skein",
      data: { type: "usage", inputTokens: expect.any(Number) },
    });
    expect(answer?.id).toBeDefined();
    // Saved back as loaded, nothing changes; a new user message is appended after the runner's.
    expect((await saveChat(thread, chat)).appended).toEqual([]);
    await saveChat(thread, [...chat, { id: "u2", role: "user", parts: [{ type: "text", text: "Thanks" }] }]);
    expect((await thread.messages()).map((message: Message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });

  it("and a chat the AI SDK saved runs with openaiRunner: its tool parts go to the model as calls and outputs", async () => {
    const thread = await store.create();
    await saveChat(thread, [
      { id: "u1", role: "user", parts: [{ type: "text", text: "What is the weather in Oslo?" }] },
      {
        id: "a1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-weather",
            toolCallId: "call-1",
            state: "output-available",
            input: { city: "Oslo" },
            output: { celsius: -3 },
          },
        ],
      },
    ]);
    const [answer] = await runner.run(thread);
    expect(answer?.contents[0]).toMatchObject({ type: "text", text: 'The tool answered: {"celsius":-3}' });
    const input = emulator.requestsTo("responses.create")[0]?.body.input as Array<{ type?: string }>;
    expect(input.map((item) => item.type)).toEqual(["message", "function_call", "function_call_output"]);
    const chat = await loadChat(thread);
    await expect(validateUIMessages({ messages: chat })).resolves.toEqual(chat);
    expect(chat).toHaveLength(3);
  });

  it("is read from an openai.conversation, and saveChat refuses one before writing anything", async () => {
    const client = new OpenAI({ apiKey: emulator.apiKey, baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const remote = await openStore("memory:", { adapters: [openaiAdapter({ client })] });
    const thread = await remote.create("openai.conversation");
    await thread.append({ role: "user", text: "hi" });
    const chat = await loadChat(thread);
    await expect(validateUIMessages({ messages: chat })).resolves.toEqual(chat);
    // The service names messages itself: a second save could not find what the first wrote.
    const hello = { id: "u2", role: "user" as const, parts: [{ type: "text" as const, text: "hello" }] };
    const error = await saveChat(thread, [...chat, hello]).catch((caught) => caught);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect(String(error.message)).toMatch(
      /^\[ai-sdk\] Thread type "openai.conversation" does not support saveChat/,
    );
    expect(await loadChat(thread)).toEqual(chat);
    await remote.close();
  });
});

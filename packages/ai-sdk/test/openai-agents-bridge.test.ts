import type { AgentInputItem } from "@openai/agents-core";
import { createSkeinSession } from "@skein/openai-agents";
import { openStore } from "@skein/thread-core";
import { convertToModelMessages, validateUIMessages } from "ai";
import { describe, expect, it } from "vitest";
import { loadChat, saveChat } from "../src/index.js";

/** What an agent run stores in its session: a question, two parallel tool calls, their results, the answer. */
const items = [
  { type: "message", role: "user", content: "Compare the weather in Paris and Oslo." },
  {
    type: "function_call",
    id: "fc_1",
    callId: "call_p",
    name: "weather",
    arguments: '{"city":"Paris"}',
    status: "completed",
  },
  {
    type: "function_call",
    id: "fc_2",
    callId: "call_o",
    name: "weather",
    arguments: '{"city":"Oslo"}',
    status: "completed",
  },
  {
    type: "function_call_result",
    callId: "call_p",
    name: "weather",
    status: "completed",
    output: { type: "text", text: "21 °C" },
  },
  {
    type: "function_call_result",
    callId: "call_o",
    name: "weather",
    status: "completed",
    output: { type: "text", text: "-3 °C" },
  },
  {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Paris is 24 degrees warmer.", annotations: [] }],
  },
] as AgentInputItem[];

describe("a chat written through the OpenAI Agents bridge", () => {
  it("reads as valid UI messages: one assistant turn, every call completed by its result", async () => {
    const store = await openStore("memory:");
    const session = await createSkeinSession({ store, sessionId: "agents-chat" });
    await session.addItems(items);
    const thread = await store.get("agents-chat");

    const chat = await loadChat(thread);
    await expect(validateUIMessages({ messages: chat })).resolves.toEqual(chat);
    expect(chat.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(chat[0]?.parts).toEqual([{ type: "text", text: "Compare the weather in Paris and Oslo." }]);
    expect(chat[1]?.parts).toEqual([
      {
        type: "tool-weather",
        toolCallId: "call_p",
        state: "output-available",
        input: { city: "Paris" },
        output: { type: "text", text: "21 °C" },
      },
      { type: "step-start" },
      {
        type: "tool-weather",
        toolCallId: "call_o",
        state: "output-available",
        input: { city: "Oslo" },
        output: { type: "text", text: "-3 °C" },
      },
      { type: "step-start" },
      { type: "text", text: "Paris is 24 degrees warmer." },
    ]);
    // The SDK builds a prompt from it that pairs each call with its result.
    const prompt = await convertToModelMessages(chat);
    expect(prompt.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);

    // Saved back as loaded, nothing changes, and the session still reads its items exactly.
    expect((await saveChat(thread, chat)).appended).toEqual([]);
    expect(await session.getItems()).toEqual(items);
    await store.close();
  });
});

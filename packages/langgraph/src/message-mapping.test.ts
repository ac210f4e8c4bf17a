import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { type Message, openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { MessageMappingError } from "./errors.js";
import { fromLangChainMessages, toLangChainMessages } from "./message-mapping.js";

const conversation = (): BaseMessage[] => [
  new SystemMessage("You are a weather bot."),
  new HumanMessage({ content: "Weather in Paris?", id: "h1", name: "ana" }),
  new AIMessage({
    content: "Let me look.",
    id: "a1",
    tool_calls: [
      { id: "call_1", name: "weather", args: { city: "Paris" }, type: "tool_call" },
      { id: "call_2", name: "time", args: {} },
    ],
    usage_metadata: {
      input_tokens: 12,
      output_tokens: 7,
      total_tokens: 19,
      input_token_details: { cache_read: 4 },
    },
    response_metadata: { model_name: "gpt-test", finish_reason: "tool_calls" },
  }),
  new ToolMessage({ content: '{"celsius":21}', tool_call_id: "call_1", id: "t1", name: "weather" }),
  new ToolMessage({ content: "boom", tool_call_id: "call_2", status: "error", artifact: { trace: [1, 2] } }),
  new AIMessage({
    content: [
      { type: "text", text: "21°C" },
      { type: "reasoning", reasoning: "the tool said so" },
      { type: "image_url", image_url: { url: "https://example.com/sun.png" } },
    ],
    additional_kwargs: { refusal: null },
  }),
  new HumanMessage({ content: [{ type: "text", text: "thanks" }] }),
  new AIMessage(""),
];

describe("fromLangChainMessages / toLangChainMessages", () => {
  it("gives human, ai with tool calls, tool and system messages back deep-equal", () => {
    const original = conversation();
    const back = toLangChainMessages(fromLangChainMessages(original));
    expect(back).toStrictEqual(original);
  });

  it("round-trips through a skein thread: the stored messages are skein's own shapes", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    const original = conversation();
    const stored = await thread.append(fromLangChainMessages(original));
    const [system, human, ai, tool] = stored as [Message, Message, Message, Message];
    expect(system.role).toBe("system");
    expect(human).toMatchObject({
      id: "h1",
      role: "user",
      authorName: "ana",
      contents: [{ type: "text", text: "Weather in Paris?" }],
    });
    expect(ai.contents).toContainEqual({
      type: "function_call",
      callId: "call_1",
      name: "weather",
      arguments: { city: "Paris" },
      langchain: { type: "tool_call" },
    });
    expect(ai.contents).toContainEqual(
      expect.objectContaining({ type: "usage", inputTokens: 12, outputTokens: 7, totalTokens: 19 }),
    );
    expect(tool.contents).toEqual([{ type: "function_result", callId: "call_1", result: '{"celsius":21}' }]);
    const back = toLangChainMessages(await thread.messages());
    // Messages without an id got skein's; everything else is as it was.
    expect(back.map((message) => message.id)).toEqual(stored.map((message) => message.id));
    const withoutId = (message: BaseMessage) => {
      const { data, type } = message.toDict();
      const { id: _id, ...rest } = data as unknown as Record<string, unknown>;
      return { type, data: rest };
    };
    expect(back.map(withoutId)).toEqual(original.map(withoutId));
  });

  it("reads a native skein thread: text shorthand, function calls with string arguments, reasoning", () => {
    const [user, assistant, tool] = toLangChainMessages([
      { id: "u", role: "user", text: "hi" },
      {
        id: "a",
        role: "assistant",
        createdAt: "2026-11-21T22:39:36.000Z",
        contents: [
          { type: "reasoning", text: "think" },
          { type: "function_call", callId: "c", name: "f", arguments: '{"x":1}' },
        ],
      },
      {
        id: "t",
        role: "tool",
        createdAt: "2026-11-21T22:39:36.000Z",
        contents: [{ type: "function_result", callId: "c", result: { ok: true }, isError: true }],
      },
    ]);
    expect(user).toBeInstanceOf(HumanMessage);
    expect(user?.content).toBe("hi");
    expect((assistant as AIMessage).tool_calls).toEqual([{ id: "c", name: "f", args: { x: 1 } }]);
    expect(assistant?.content).toEqual([{ type: "reasoning", reasoning: "think" }]);
    expect(tool).toMatchObject({ tool_call_id: "c", content: '{"ok":true}', status: "error" });
  });

  it("refuses what it cannot map without loss, with a typed error", () => {
    const noId = new AIMessage({ content: "", tool_calls: [{ name: "f", args: {} }] });
    expect(() => fromLangChainMessages([noId])).toThrow(MessageMappingError);
    expect(() => toLangChainMessages([{ role: "tool", text: "orphan" }])).toThrow(/no function_result/);
  });
});

import type { Message } from "@skein/thread-core";
import { MessageListSchema, normalizeMessage } from "@skein/thread-core/driver";
import { convertToModelMessages, type ModelMessage, type UIMessage, validateUIMessages } from "ai";
import { describe, expect, it } from "vitest";
import {
  fromModelMessages,
  fromUIMessages,
  MessageMappingError,
  toModelMessages,
  toUIMessages,
} from "../src/index.js";
import { everyModelPart, everyUIPart } from "./fixtures.js";

/** As a store gives messages back: JSON. */
function stored(messages: Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages));
}

describe("UI messages", () => {
  it("round-trip every part type and tool state, equal, through JSON, and pass validateUIMessages", async () => {
    const messages = stored(fromUIMessages(everyUIPart));
    expect(MessageListSchema.safeParse(messages).success).toBe(true);
    const back = toUIMessages(messages);
    expect(back).toEqual(everyUIPart);
    await expect(validateUIMessages({ messages: back })).resolves.toBeDefined();
  });

  it("use skein's own content types where one fits", () => {
    const [, user, assistant] = fromUIMessages(everyUIPart);
    expect(user?.contents.map((content) => content.type)).toEqual([
      "text",
      "data",
      "uri",
      "uri",
      "ai-sdk.data-note",
    ]);
    expect(user?.contents[1]).toMatchObject({ type: "data", mediaType: "image/png", name: "tiny.png" });
    const contents = assistant?.contents ?? [];
    const byCall = (callId: string) => contents.filter((content) => content.callId === callId);
    expect(byCall("c-output")).toMatchObject([
      { type: "function_call", name: "weather", arguments: { city: "Oslo" } },
      { type: "function_result", result: { celsius: -3 } },
    ]);
    expect(byCall("c-error")[1]).toMatchObject({
      type: "function_result",
      result: "no such city",
      isError: true,
    });
    expect(byCall("c-denied")[1]).toMatchObject({
      type: "function_result",
      result: "never the root",
      isError: true,
    });
    expect(byCall("c-denied-silent")[1]).toMatchObject({
      result: "Tool call execution denied.",
      isError: true,
    });
    expect(byCall("c-requested")).toHaveLength(1);
    expect(byCall("d-available")[0]).toMatchObject({
      type: "function_call",
      name: "mcp_search",
      arguments: "[1,2]",
    });
    expect(contents.map((content) => content.type)).toContain("ai-sdk.source-url");
    expect(user?.metadata).toEqual({
      "ai-sdk": { from: "ui", metadata: { sentAt: "2026-11-23T01:00:00.000Z", tags: ["a", "b"] } },
    });
  });

  it("give the SDK the same prompt from a thread as from the UI messages", async () => {
    const messages = stored(fromUIMessages(everyUIPart));
    const expected = await convertToModelMessages(everyUIPart);
    expect(await convertToModelMessages(toUIMessages(messages))).toEqual(expected);
    expect(await toModelMessages(messages)).toEqual(expected);
  });
});

describe("model messages", () => {
  it("round-trip every part type and output kind, equal, through JSON", async () => {
    const messages = stored(fromModelMessages(everyModelPart));
    expect(MessageListSchema.safeParse(messages).success).toBe(true);
    expect(await toModelMessages(messages)).toEqual(everyModelPart);
  });

  it("use function_call and function_result, which every skein reader understands", () => {
    const [, , user, assistant, tool] = fromModelMessages(everyModelPart);
    expect(user?.contents.map((content) => content.type)).toEqual([
      "text",
      "data",
      "uri",
      "data",
      "data",
      "data",
      "data",
      "uri",
    ]);
    expect(assistant?.contents[2]).toMatchObject({
      type: "function_call",
      callId: "t1",
      arguments: { city: "Paris" },
    });
    expect(assistant?.contents[6]).toMatchObject({ type: "ai-sdk.tool-approval-request", approvalId: "a1" });
    expect(tool?.contents[1]).toMatchObject({
      type: "function_result",
      callId: "t1",
      result: { celsius: 21 },
    });
    expect(tool?.contents[2]).toMatchObject({ type: "function_result", result: "overflow", isError: true });
  });

  it("read as valid UI messages", async () => {
    const uiMessages = toUIMessages(stored(fromModelMessages(everyModelPart)));
    await expect(validateUIMessages({ messages: uiMessages })).resolves.toBeDefined();
    // The assistant turn (calls, the tool message, the answer) is one UI message, a step-start between steps.
    expect(uiMessages.map((message) => message.role)).toEqual(["system", "user", "user", "assistant"]);
    expect(uiMessages[3]?.parts.slice(-2)).toEqual([
      { type: "step-start" },
      { type: "text", text: "The answer." },
    ]);
    expect(
      uiMessages[3]?.parts.find((part) => "toolCallId" in part && part.toolCallId === "t1"),
    ).toMatchObject({
      type: "tool-weather",
      state: "output-available",
      output: { celsius: 21 },
    });
  });
});

describe("model messages with tool approvals", () => {
  const call = (toolCallId: string) => ({
    type: "tool-call" as const,
    toolCallId,
    toolName: "remove",
    input: { path: toolCallId },
  });
  const request = (toolCallId: string) => ({
    type: "tool-approval-request" as const,
    approvalId: `ap-${toolCallId}`,
    toolCallId,
  });
  const response = (toolCallId: string, approved: boolean) => ({
    type: "tool-approval-response" as const,
    approvalId: `ap-${toolCallId}`,
    approved,
    ...(approved ? {} : { reason: "not that one" }),
  });

  it("read as the tool parts' approval states", async () => {
    const modelMessages: ModelMessage[] = [
      { role: "user", content: "clean up" },
      {
        role: "assistant",
        content: [call("a"), request("a"), call("b"), request("b"), call("c"), request("c")],
      },
      {
        role: "tool",
        content: [
          response("a", true),
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "remove",
            output: { type: "json", value: { removed: "a" } },
          },
          response("b", false),
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "remove",
            output: { type: "execution-denied", reason: "not that one" },
          },
        ],
      },
    ];
    const stored = JSON.parse(JSON.stringify(fromModelMessages(modelMessages)));
    expect(await toModelMessages(stored)).toEqual(modelMessages);
    const uiMessages = toUIMessages(stored);
    await expect(validateUIMessages({ messages: uiMessages })).resolves.toBeDefined();
    expect(uiMessages[1]?.parts).toEqual([
      {
        type: "tool-remove",
        toolCallId: "a",
        state: "output-available",
        input: { path: "a" },
        output: { removed: "a" },
        approval: { id: "ap-a", approved: true },
      },
      {
        type: "tool-remove",
        toolCallId: "b",
        state: "output-denied",
        input: { path: "b" },
        approval: { id: "ap-b", approved: false, reason: "not that one" },
      },
      {
        type: "tool-remove",
        toolCallId: "c",
        state: "approval-requested",
        input: { path: "c" },
        approval: { id: "ap-c" },
      },
    ]);
  });
});

describe("messages other skein writers wrote", () => {
  const thread = [
    { role: "user", text: "weather in Paris?" },
    {
      role: "assistant",
      contents: [{ type: "function_call", callId: "call_1", name: "weather", arguments: '{"city":"Paris"}' }],
    },
    { role: "tool", contents: [{ type: "function_result", callId: "call_1", result: { celsius: 21 } }] },
    {
      role: "tool",
      contents: [{ type: "function_result", callId: "call_2", result: "lost", isError: true }],
    },
    {
      role: "assistant",
      contents: [
        { type: "text", text: "21 degrees." },
        { type: "usage", inputTokens: 10, outputTokens: 3 },
      ],
    },
  ].map((input) => normalizeMessage(input));

  it("fold an assistant turn into one UI message, results completing their calls, and pass validateUIMessages", async () => {
    const uiMessages = toUIMessages(thread);
    await expect(validateUIMessages({ messages: uiMessages })).resolves.toBeDefined();
    expect(uiMessages).toEqual([
      { id: thread[0]?.id, role: "user", parts: [{ type: "text", text: "weather in Paris?" }] },
      {
        id: thread[1]?.id,
        role: "assistant",
        parts: [
          {
            type: "tool-weather",
            toolCallId: "call_1",
            state: "output-available",
            input: { city: "Paris" },
            output: { celsius: 21 },
          },
          {
            type: "data-skein",
            data: { type: "function_result", callId: "call_2", result: "lost", isError: true },
          },
          { type: "step-start" },
          { type: "text", text: "21 degrees." },
          { type: "data-skein", data: { type: "usage", inputTokens: 10, outputTokens: 3 } },
        ],
      },
    ]);
  });

  it("complete calls made in separate messages before their results, as the OpenAI Agents bridge writes them", async () => {
    const calls = [
      { role: "user", text: "compare Paris and Oslo" },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "p", name: "weather", arguments: { city: "Paris" } }],
      },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "o", name: "weather", arguments: { city: "Oslo" } }],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "p", result: { celsius: 21 } }] },
      { role: "tool", contents: [{ type: "function_result", callId: "o", result: { celsius: -3 } }] },
    ].map((input) => normalizeMessage(input));
    const [, turn] = toUIMessages(calls);
    expect(turn?.parts.map((part) => ("state" in part ? part.state : part.type))).toEqual([
      "output-available",
      "step-start",
      "output-available",
    ]);
    // The SDK sends each step's call before its result: a prompt a model takes.
    const prompt = await convertToModelMessages(toUIMessages(calls));
    expect(prompt.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
  });

  it("give the model their calls and results, without usage records", async () => {
    expect(await toModelMessages(thread)).toEqual([
      { role: "user", content: [{ type: "text", text: "weather in Paris?" }] },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_1", toolName: "weather", input: { city: "Paris" } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "weather",
            output: { type: "json", value: { celsius: 21 } },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_2",
            toolName: "unknown",
            output: { type: "error-text", value: "lost" },
          },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "21 degrees." }] },
    ]);
  });

  it("come back unchanged through data-skein parts when the UI messages are saved again", () => {
    const again = fromUIMessages(toUIMessages(thread));
    expect(again[1]?.contents.slice(-2)).toEqual(thread[4]?.contents);
  });
});

describe("what cannot be mapped", () => {
  it("is a MessageMappingError naming where, before anything is written", () => {
    const caught = (task: () => unknown) => {
      try {
        task();
      } catch (error) {
        return error;
      }
      throw new Error("expected the mapping to fail");
    };
    const role = caught(() => fromUIMessages([{ id: "x", role: "tool", parts: [] } as unknown as UIMessage]));
    expect(MessageMappingError.isInstance(role)).toBe(true);
    expect((role as MessageMappingError).message).toMatch(/^\[ai-sdk\] Cannot map the message at 0: /);
    const image = caught(() =>
      fromModelMessages([{ role: "user", content: [{ type: "image", image: 42 as unknown as string }] }]),
    );
    expect(MessageMappingError.isInstance(image)).toBe(true);
    expect((image as MessageMappingError).path).toEqual([0, "content", 0, "image"]);
  });
});

import { type Message, UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { messageToItems } from "./message-to-items.js";

const store = { kind: "store", threadType: "openai.conversation" } as const;
const model = { kind: "model" } as const;

function message(role: Message["role"], contents: Message["contents"]): Message {
  return { id: "m", role, createdAt: "2026-11-21T22:39:36.000Z", contents };
}

describe("messageToItems", () => {
  it("gathers parts into message items and gives calls and results items of their own, in order", () => {
    const items = messageToItems(
      message("assistant", [
        { type: "text", text: "a" },
        { type: "function_call", callId: "c1", name: "f", arguments: "{}" },
        { type: "text", text: "b" },
        { type: "uri", uri: "https://example.com/report.pdf" },
      ]),
      store,
    );
    expect(items).toEqual([
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "a", annotations: [] }] },
      { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
      {
        type: "message",
        role: "assistant",
        content: [
          { type: "output_text", text: "b", annotations: [] },
          { type: "input_file", file_url: "https://example.com/report.pdf" },
        ],
      },
    ]);
  });

  it("never sends usage, error or unencrypted reasoning contents", () => {
    const items = messageToItems(
      message("assistant", [
        { type: "reasoning", text: "thinking" },
        { type: "text", text: "answer" },
        { type: "usage", inputTokens: 1, outputTokens: 2 },
        { type: "error", message: "cut short" },
      ]),
      store,
    );
    expect(items).toEqual([
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "answer", annotations: [] }],
      },
    ]);
  });

  it("refuses what the service cannot hold when storing, and leaves it out of a model's input", () => {
    const toolText = message("tool", [{ type: "text", text: "raw tool text" }]);
    expect(() => messageToItems(toolText, store)).toThrow(UnsupportedOperationError);
    expect(messageToItems(toolText, model)).toEqual([]);
    const custom = message("user", [{ type: "acme.widget", size: 1 }]);
    expect(() => messageToItems(custom, store)).toThrow(/storing "acme\.widget" contents/);
    expect(messageToItems(custom, model)).toEqual([]);
  });

  it("sends data as images or files with data URLs", () => {
    const items = messageToItems(
      message("user", [
        { type: "data", mediaType: "image/png", data: "iVBORw0KGgo=" },
        { type: "data", mediaType: "application/pdf", data: "JVBERi0=", name: "a.pdf" },
      ]),
      store,
    );
    expect(items).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
          { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" },
        ],
      },
    ]);
  });
});

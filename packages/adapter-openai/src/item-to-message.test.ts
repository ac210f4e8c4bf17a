import { describe, expect, it } from "vitest";
import { itemToMessage } from "./item-to-message.js";
import { messageToItems } from "./message-to-items.js";

const at = "2026-11-21T22:39:36.000Z";
const model = { kind: "model" } as const;

describe("itemToMessage", () => {
  it("maps message parts to text, data, uri and file contents, and back", () => {
    const item = {
      id: "msg_1",
      type: "message",
      role: "user",
      status: "completed",
      content: [
        { type: "input_text", text: "look" },
        { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        { type: "input_image", image_url: "https://example.com/cat.png", detail: "high" },
        { type: "input_file", file_id: "file_1", filename: "report.pdf" },
      ],
    };
    const message = itemToMessage(item, at);
    expect(message).toEqual({
      id: "msg_1",
      role: "user",
      createdAt: at,
      contents: [
        { type: "text", text: "look" },
        { type: "data", mediaType: "image/png", data: "iVBORw0KGgo=" },
        { type: "uri", uri: "https://example.com/cat.png", mediaType: "image/*", detail: "high" },
        { type: "file", fileId: "file_1", name: "report.pdf" },
      ],
    });
    expect(messageToItems(message, model)).toEqual([
      { type: "message", role: "user", content: item.content },
    ]);
  });

  it("maps developer messages to system, and assistant text to output_text with its annotations", () => {
    expect(
      itemToMessage({ id: "m", type: "message", role: "developer", content: "rules" }, at),
    ).toMatchObject({
      role: "system",
      contents: [{ type: "text", text: "rules" }],
    });
    const annotations = [
      { type: "url_citation", url: "https://example.com", start_index: 0, end_index: 2, title: "x" },
    ];
    const answer = itemToMessage(
      {
        id: "m2",
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "hi", annotations }],
      },
      at,
    );
    expect(answer.contents).toEqual([{ type: "text", text: "hi", annotations }]);
    expect(messageToItems(answer, model)).toEqual([
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "hi", annotations }] },
    ]);
  });

  it("keeps parts and items it does not know exactly, and writes them back unchanged", () => {
    const refusal = { type: "refusal", refusal: "I cannot." };
    const message = itemToMessage({ id: "m", type: "message", role: "assistant", content: [refusal] }, at);
    expect(message.contents).toEqual([{ type: "openai.content", part: refusal }]);
    expect(messageToItems(message, model)).toEqual([
      { type: "message", role: "assistant", content: [refusal] },
    ]);
    const critic = {
      id: "m3",
      type: "message",
      role: "critic",
      content: [{ type: "input_text", text: "hm" }],
    };
    const kept = itemToMessage(critic, at);
    expect(kept).toEqual({
      id: "m3",
      role: "assistant",
      createdAt: at,
      contents: [{ type: "openai.item", item: critic }],
    });
    expect(messageToItems(kept, model)).toEqual([critic]);
  });

  it("maps calls and results, parsing JSON arguments and structured output", () => {
    const call = itemToMessage(
      { id: "fc_1", type: "function_call", call_id: "c", name: "f", arguments: '{"a":1}' },
      at,
    );
    expect(call).toMatchObject({
      role: "assistant",
      contents: [{ type: "function_call", callId: "c", name: "f", arguments: { a: 1 } }],
    });
    const raw = itemToMessage(
      { id: "fc_2", type: "function_call", call_id: "c", name: "f", arguments: "not json" },
      at,
    );
    expect(raw.contents[0]).toMatchObject({ arguments: "not json" });
    const result = itemToMessage(
      { id: "o", type: "function_call_output", call_id: "c", output: "[1,2]" },
      at,
    );
    expect(result).toMatchObject({
      role: "tool",
      contents: [{ type: "function_result", callId: "c", result: [1, 2] }],
    });
    const text = itemToMessage({ id: "o2", type: "function_call_output", call_id: "c", output: "42" }, at);
    expect(text.contents[0]).toMatchObject({ result: "42" });
    expect(messageToItems(result, model)).toEqual([
      { type: "function_call_output", call_id: "c", output: "[1,2]" },
    ]);
  });

  it("maps reasoning to a reasoning content that goes back only when the service encrypted it", () => {
    const plain = itemToMessage(
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "hmm" }] },
      at,
    );
    expect(plain.contents).toEqual([{ type: "reasoning", text: "hmm", itemId: "rs_1" }]);
    expect(messageToItems(plain, model)).toEqual([]);
    const sealed = itemToMessage(
      { id: "rs_2", type: "reasoning", summary: [], encrypted_content: "enc" },
      at,
    );
    expect(messageToItems(sealed, model)).toEqual([
      { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "enc" },
    ]);
  });
});

// Items of shapes openai 7 added or changed; the service sends them to clients of either major.
describe("openai 7 items", () => {
  it("keeps a configuration_update whole as a system message, and writes it back unchanged", () => {
    const update = {
      id: "cu_1",
      type: "configuration_update",
      reasoning: { effort: "low" },
      text: { verbosity: "low" },
    };
    const message = itemToMessage(update, at);
    expect(message).toEqual({
      id: "cu_1",
      role: "system",
      createdAt: at,
      contents: [{ type: "openai.item", item: update }],
    });
    expect(messageToItems(message, model)).toEqual([update]);
    expect(messageToItems(message, { kind: "store", threadType: "openai.conversation" })).toEqual([update]);
  });

  it("keeps an MCP call whose error is an object (openai 7) or a string (openai 6) as it came", () => {
    const call = (error: unknown) => ({
      id: "mcp_1",
      type: "mcp_call",
      server_label: "files",
      name: "read",
      arguments: "{}",
      error,
    });
    for (const error of [{ type: "tool_execution_error", message: "no such file" }, "no such file", null]) {
      const message = itemToMessage(call(error), at);
      expect(message.role).toBe("assistant");
      expect(messageToItems(message, model)).toEqual([call(error)]);
    }
  });
});

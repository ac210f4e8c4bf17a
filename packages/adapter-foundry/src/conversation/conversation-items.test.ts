import { type Message, UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import { itemToMessage } from "./conversation-items.js";
import { messageToItems } from "./message-items.js";

const AT = "2026-01-02T03:04:05.000Z";

function message(role: Message["role"], contents: Message["contents"]): Message {
  return { id: "m1", role, createdAt: AT, contents };
}

describe("conversation items as messages", () => {
  test("message parts become text, error, uri, file and data contents", () => {
    const read = itemToMessage(
      {
        id: "msg_1",
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "look" },
          { type: "input_image", image_url: "https://x.test/a.png" },
          { type: "input_image", file_id: "file_1" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
          { type: "input_file", file_id: "file_2", filename: "a.pdf" },
          { type: "input_file", file_url: "https://x.test/a.pdf" },
        ],
      },
      AT,
    );
    expect(read).toEqual({
      id: "msg_1",
      role: "user",
      createdAt: AT,
      contents: [
        { type: "text", text: "look" },
        { type: "uri", uri: "https://x.test/a.png", mediaType: "image/*" },
        { type: "file", fileId: "file_1", mediaType: "image/*" },
        { type: "data", mediaType: "image/png", data: "iVBORw0KGgo=" },
        { type: "file", fileId: "file_2", name: "a.pdf" },
        { type: "uri", uri: "https://x.test/a.pdf" },
      ],
    });
  });

  test("assistant output keeps annotations and refusals; developer messages read as system", () => {
    const annotations = [{ type: "url_citation", url: "https://x.test" }];
    const assistant = itemToMessage(
      {
        id: "msg_2",
        type: "message",
        role: "assistant",
        content: [
          { type: "output_text", text: "see", annotations },
          { type: "refusal", refusal: "no" },
        ],
      },
      AT,
    );
    expect(assistant.contents).toEqual([
      { type: "text", text: "see", annotations },
      { type: "error", message: "no", code: "refusal" },
    ]);
    expect(
      itemToMessage({ id: "msg_3", type: "message", role: "developer", content: "rules" }, AT).role,
    ).toBe("system");
  });

  test("calls, outputs, reasoning and hosted tool items, with the item's own time when it has one", () => {
    const call = itemToMessage(
      { id: "fc_1", type: "function_call", call_id: "c", name: "f", arguments: '{"a":1}', created_at: 0 },
      AT,
    );
    expect(call).toMatchObject({ role: "assistant", createdAt: "1970-01-01T00:00:00.000Z" });
    expect(call.contents).toEqual([{ type: "function_call", callId: "c", name: "f", arguments: { a: 1 } }]);
    const loose = itemToMessage(
      { id: "fc_2", type: "function_call", call_id: "c", name: "f", arguments: "not json" },
      AT,
    );
    expect(loose.contents[0]).toMatchObject({ arguments: "not json" });
    const output = itemToMessage(
      { id: "fco_1", type: "function_call_output", call_id: "c", output: "42" },
      AT,
    );
    expect(output).toMatchObject({
      role: "tool",
      contents: [{ type: "function_result", callId: "c", result: "42" }],
    });
    const reasoning = itemToMessage(
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "think" }] },
      AT,
    );
    expect(reasoning.contents).toEqual([{ type: "reasoning", text: "think" }]);
    const search = { id: "ws_1", type: "web_search_call", status: "completed" };
    expect(itemToMessage(search, AT).contents).toEqual([search]);
  });
});

describe("messages as conversation items", () => {
  test("one text is a plain string; calls and results are items of their own, in order", () => {
    const items = messageToItems(
      message("assistant", [
        { type: "text", text: "checking" },
        { type: "function_call", callId: "c1", name: "f", arguments: { q: 1 } },
        { type: "reasoning", text: "private" },
        { type: "usage", inputTokens: 3 },
      ]),
      "foundry.conversation",
    );
    expect(items).toEqual([
      { type: "message", role: "assistant", content: "checking" },
      { type: "function_call", call_id: "c1", name: "f", arguments: '{"q":1}' },
    ]);
    const results = messageToItems(
      message("tool", [{ type: "function_result", callId: "c1", result: "boom", isError: true }]),
      "foundry.conversation",
    );
    expect(results).toEqual([{ type: "function_call_output", call_id: "c1", output: '{"error":"boom"}' }]);
  });

  test("media goes as input parts in user messages; refusals as refusal parts", () => {
    const user = messageToItems(
      message("user", [
        { type: "text", text: "see" },
        { type: "data", mediaType: "application/pdf", data: "JVBERi0=", name: "a.pdf" },
        { type: "file", fileId: "file_1", mediaType: "image/png" },
      ]),
      "foundry.conversation",
    );
    expect(user).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "see" },
          { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" },
          { type: "input_image", file_id: "file_1" },
        ],
      },
    ]);
    const refusal = messageToItems(
      message("assistant", [{ type: "error", message: "no", code: "refusal" }]),
      "t",
    );
    expect(refusal).toEqual([
      { type: "message", role: "assistant", content: [{ type: "refusal", refusal: "no" }] },
    ]);
  });

  test("a hosted tool item read from a conversation is replayed whole; other unknown contents are refused", () => {
    const search = { type: "web_search_call", id: "ws_1", status: "completed" };
    expect(messageToItems(message("assistant", [search]), "t")).toEqual([search]);
    expect(() => messageToItems(message("assistant", [{ type: "acme.widget", size: 3 }]), "t")).toThrow(
      UnsupportedOperationError,
    );
    expect(() => messageToItems(message("tool", [{ type: "text", text: "x" }]), "t")).toThrow(
      /text in tool messages/,
    );
    expect(() =>
      messageToItems(
        message("user", [{ type: "function_call", callId: "c", name: "f", arguments: {} }]),
        "t",
      ),
    ).toThrow(/function calls in user messages/);
  });
});

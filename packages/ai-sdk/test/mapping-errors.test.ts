import type { ModelMessage, UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { fromModelMessages, fromUIMessages, MessageMappingError } from "../src/index.js";
import { installedMajor, onAi6, onAi7 } from "./ai-major.js";

/** The error a mapping threw: a MessageMappingError (never a raw TypeError) whose path names the part. */
function refusal(task: () => unknown): MessageMappingError {
  try {
    task();
  } catch (error) {
    if (!MessageMappingError.isInstance(error)) throw error;
    return error as MessageMappingError;
  }
  throw new Error("expected the mapping to be refused");
}

const ui = (...parts: unknown[]) =>
  [
    { id: "u", role: "user", parts: [{ type: "text", text: "hi" }] },
    { id: "a", role: "assistant", parts },
  ] as unknown as UIMessage[];
const model = (...content: unknown[]) =>
  [
    { role: "user", content: "hi" },
    { role: "assistant", content },
  ] as unknown as ModelMessage[];

describe(`bad UI parts (ai ${installedMajor} installed)`, () => {
  it("a type neither major has is refused, naming message, part and type", () => {
    const error = refusal(() =>
      fromUIMessages(ui({ type: "text", text: "ok" }, { type: "banner", text: "x" })),
    );
    expect(error.path).toEqual([1, "parts", 1]);
    expect(error.message).toMatch(
      /^\[ai-sdk\] Cannot map the message at 1\.parts\.1: a part of type "banner"/,
    );
  });

  it("a file part without url and a tool part without toolCallId are refused, not a TypeError", () => {
    expect(refusal(() => fromUIMessages(ui({ type: "file", mediaType: "image/png" }))).message).toMatch(
      /at 1\.parts\.0: a "file" part needs a string url/,
    );
    expect(refusal(() => fromUIMessages(ui({ type: "source-url", sourceId: "s" }))).message).toMatch(
      /a "source-url" part needs a string url/,
    );
    expect(refusal(() => fromUIMessages(ui({ type: "tool-x", state: "input-available" }))).path).toEqual([
      1,
      "parts",
      0,
    ]);
  });

  it.skipIf(onAi7)("AI SDK 7's parts are refused under ai 6, which cannot validate them", () => {
    for (const part of [
      { type: "custom", kind: "openai.compaction" },
      { type: "reasoning-file", mediaType: "image/png", url: "https://example.com/r.png" },
      { type: "steering-message", id: "s", parts: [] },
    ]) {
      const error = refusal(() => fromUIMessages(ui(part)));
      expect(error.path).toEqual([1, "parts", 0]);
      expect(error.message).toContain(`a "${part.type}" part is an AI SDK 7 part`);
    }
  });

  it.skipIf(onAi6)("malformed 7.x parts are refused, naming the field (ai 6 has no custom part)", () => {
    const cases: Array<[unknown, RegExp, Array<string | number>]> = [
      [{ type: "custom" }, /a "custom" part needs a string kind/, [1, "parts", 0]],
      [
        { type: "reasoning-file", mediaType: "image/png" },
        /a "reasoning-file" part needs a string url/,
        [1, "parts", 0],
      ],
      [{ type: "steering-message", id: "s" }, /needs an array of parts/, [1, "parts", 0, "parts"]],
      [
        {
          type: "steering-message",
          id: "s",
          parts: [
            { type: "text", text: "a" },
            { type: "reasoning", text: "b" },
          ],
        },
        /holds text and file parts, not "reasoning"/,
        [1, "parts", 0, "parts", 1],
      ],
    ];
    for (const [part, message, path] of cases) {
      const error = refusal(() => fromUIMessages(ui(part)));
      expect(error.message).toMatch(message);
      expect(error.path).toEqual(path);
    }
  });
});

describe(`bad model parts (ai ${installedMajor} installed)`, () => {
  it("a type neither major has, or a tool call without toolName, is refused naming the part", () => {
    expect(refusal(() => fromModelMessages(model({ type: "banner" }))).path).toEqual([1, "content", 0]);
    expect(
      refusal(() => fromModelMessages(model({ type: "tool-call", toolCallId: "c", input: {} }))).message,
    ).toMatch(/at 1\.content\.0: a "tool-call" part needs a string toolName/);
    expect(
      refusal(() => fromModelMessages(model({ type: "tool-approval-request", approvalId: "a" }))).message,
    ).toMatch(/a "tool-approval-request" part needs a string toolCallId/);
  });

  it.skipIf(onAi7)("AI SDK 7's parts, file data and tool output items are refused under ai 6", () => {
    expect(refusal(() => fromModelMessages(model({ type: "custom", kind: "a.b" }))).message).toContain(
      'a "custom" part is an AI SDK 7 model part',
    );
    const file = {
      type: "file",
      mediaType: "image/png",
      data: { type: "url", url: new URL("https://e.com/x") },
    };
    expect(refusal(() => fromModelMessages(model(file))).path).toEqual([1, "content", 0, "data"]);
    const output = {
      type: "content",
      value: [{ type: "file-reference", providerReference: { openai: "f" } }],
    };
    const result = { type: "tool-result", toolCallId: "c", toolName: "x", output };
    expect(refusal(() => fromModelMessages(model(result))).path).toEqual([
      1,
      "content",
      0,
      "output",
      "value",
      0,
    ]);
  });

  it.skipIf(onAi6)(
    "malformed 7.x parts and 6's media output item are refused under ai 7 (ai 6 has no custom part)",
    () => {
      expect(refusal(() => fromModelMessages(model({ type: "custom" }))).message).toMatch(
        /at 1\.content\.0: a "custom" part needs a string kind/,
      );
      expect(
        refusal(() => fromModelMessages(model({ type: "reasoning-file", mediaType: "image/png" }))).message,
      ).toMatch(/a "reasoning-file" part needs its data/);
      const url = { type: "file", mediaType: "image/png", data: { type: "url", url: "https://e.com/x" } };
      expect(refusal(() => fromModelMessages(model(url))).path).toEqual([1, "content", 0, "data", "url"]);
      const output = { type: "content", value: [{ type: "media", data: "AA==", mediaType: "image/png" }] };
      const result = { type: "tool-result", toolCallId: "c", toolName: "x", output };
      expect(refusal(() => fromModelMessages(model(result))).message).toMatch(
        /"media" content output item is AI SDK 6's/,
      );
    },
  );
});

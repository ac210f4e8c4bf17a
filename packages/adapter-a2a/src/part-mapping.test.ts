import type { Content } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { CONTENT_MARKER, contentToPart, partToContent } from "./part-mapping.js";

const base64 = (text: string) => Buffer.from(text).toString("base64");

describe("parts and contents", () => {
  it("maps the contents A2A has parts for onto those parts", () => {
    expect(contentToPart({ type: "text", text: "hi" })).toEqual({ text: "hi", mediaType: "text/plain" });
    expect(
      contentToPart({ type: "data", mediaType: "image/png", data: base64("png"), name: "a.png" }),
    ).toEqual({
      raw: base64("png"),
      mediaType: "image/png",
      filename: "a.png",
    });
    expect(contentToPart({ type: "uri", uri: "https://x.test/a" })).toEqual({ url: "https://x.test/a" });
  });

  it("carries any other content whole in a marked data part", () => {
    const call: Content = { type: "function_call", callId: "c1", name: "f", arguments: { a: 1 } };
    const part = contentToPart(call);
    expect(part).toEqual({ data: call, mediaType: "application/json", metadata: { [CONTENT_MARKER]: true } });
    expect(partToContent(part)).toEqual(call);
  });

  it("reads back every content it writes", () => {
    const contents: Content[] = [
      { type: "text", text: "plain" },
      { type: "text", text: "markdown", mediaType: "text/markdown" },
      { type: "text", text: "explicit", mediaType: "text/plain" },
      { type: "text", text: "extra", lang: "en" },
      { type: "data", mediaType: "application/pdf", data: base64("%PDF") },
      { type: "data", mediaType: "application/pdf", data: base64("%PDF"), name: "" },
      { type: "uri", uri: "https://x.test/b", mediaType: "image/jpeg", name: "b.jpg" },
      { type: "reasoning", text: "because" },
      { type: "usage", inputTokens: 3, outputTokens: 4 },
      { type: "error", message: "boom", code: "E1" },
      { type: "acme.card", fields: [1, "two", null] },
    ];
    for (const content of contents) expect(partToContent(contentToPart(content))).toEqual(content);
  });

  it("reads what other agents send: JSON data, files by URL, filenames and metadata", () => {
    expect(partToContent({ data: { answer: 42 } })).toEqual({
      type: "data",
      mediaType: "application/json",
      data: base64('{"answer":42}'),
    });
    expect(partToContent({ url: "https://x.test/c", filename: "c.txt", metadata: { size: 3 } })).toEqual({
      type: "uri",
      uri: "https://x.test/c",
      name: "c.txt",
      metadata: { size: 3 },
    });
    expect(partToContent({ raw: base64("bytes") })).toEqual({
      type: "data",
      mediaType: "application/octet-stream",
      data: base64("bytes"),
    });
    expect(partToContent({ metadata: { empty: true } })).toBeUndefined();
  });

  it("does not trust a marker on a part that holds no valid content", () => {
    const part = { data: { type: "function_call" }, metadata: { [CONTENT_MARKER]: true } };
    expect(partToContent(part)).toEqual({
      type: "data",
      mediaType: "application/json",
      data: base64('{"type":"function_call"}'),
      metadata: { [CONTENT_MARKER]: true },
    });
  });
});

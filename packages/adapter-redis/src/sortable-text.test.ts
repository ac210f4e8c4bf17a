import { describe, expect, it } from "vitest";
import { fromSortableText, toSortableText } from "./sortable-text.js";

const SAMPLES = [
  "",
  "a",
  "ab",
  "b",
  "~",
  "\u007f",
  "é",
  "\ud7ff",
  "\ud800",
  "\udbff\udfff",
  "🧵",
  "\ue000",
  "\uffff",
  "a🧵",
  "a\uffff",
];

describe("sortable text", () => {
  it("reverses, and leaves plain text as it is", () => {
    for (const text of SAMPLES) expect(fromSortableText(toSortableText(text))).toBe(text);
    expect(toSortableText("support-42:{x}")).toBe("support-42:{x}");
  });

  it("is well-formed, so UTF-8 carries it without loss", () => {
    for (const text of SAMPLES)
      expect(Buffer.from(toSortableText(text), "utf8").toString("utf8")).toBe(toSortableText(text));
  });

  it("orders its UTF-8 bytes as JavaScript orders code units, prefixes included", () => {
    const words = SAMPLES.flatMap((first) => SAMPLES.map((second) => first + second));
    const byCodeUnits = [...words].sort();
    const byBytes = [...words].sort((a, b) =>
      Buffer.compare(Buffer.from(toSortableText(a)), Buffer.from(toSortableText(b))),
    );
    expect(byBytes).toEqual(byCodeUnits);
    for (const word of words) {
      expect(
        Buffer.from(toSortableText(`${word}x`)).subarray(0, Buffer.byteLength(toSortableText(word))),
      ).toEqual(Buffer.from(toSortableText(word)));
    }
  });
});

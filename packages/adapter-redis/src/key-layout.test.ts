import { describe, expect, it } from "vitest";
import { KeyLayout, tagOf } from "./key-layout.js";

const IDS = [
  "a",
  "=a",
  "#a",
  "{a}",
  "a}b{c",
  "*",
  ":",
  "a:b",
  "~",
  "x".repeat(64),
  "x".repeat(65),
  "\u001fs\u001fa",
  "🧵",
];

describe("key layout", () => {
  const layout = new KeyLayout("skein");

  it("gives every id its own braces-free hash tag", () => {
    const tags = IDS.map(tagOf);
    expect(new Set(tags).size).toBe(IDS.length);
    for (const tag of tags) expect(tag).not.toMatch(/[{}]/);
    expect(tagOf("support-42")).toBe("=support-42");
  });

  it("places a thread's head segments in its record's slot, scope prefix or not", () => {
    for (const id of IDS) {
      const record = layout.record(id).record;
      const tag = record.slice(record.indexOf("{"), record.indexOf("}") + 1);
      const segment = layout.newSegmentId(id);
      expect(layout.segment(segment).info).toContain(`:${tag}:`);
      expect(layout.segment(`\u001fscope\u001f${segment}`).info).toContain(`:${tag}:`);
      expect(layout.segment(`\u001fscope\u001f${segment}`).info).not.toBe(layout.segment(segment).info);
    }
  });

  it("keeps record, segment and index keys apart", () => {
    const keys = IDS.flatMap((id) => [
      ...Object.values(layout.record(id)),
      ...Object.values(layout.segment(id)),
      ...Object.values(layout.segment(layout.newSegmentId(id))),
    ]);
    keys.push(layout.index);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("refuses a prefix that would break hash tags", () => {
    expect(() => new KeyLayout("a{b")).toThrow(/\[adapter-redis\]/);
  });
});

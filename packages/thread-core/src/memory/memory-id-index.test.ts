import { describe, expect, it } from "vitest";
import { MessageIdIndex } from "./memory-id-index.js";

/** An index over `ids`, reading each id back by offset as the memory segment does from its texts. */
function indexOf(ids: string[]): MessageIdIndex {
  const index = new MessageIdIndex((offset) => ids[offset] as string);
  for (const [offset, id] of ids.entries()) index.add(id, offset);
  return index;
}

describe("MessageIdIndex", () => {
  it("finds every id after many doublings and nothing else", () => {
    const ids = Array.from({ length: 5000 }, (_, offset) => `m-${offset}`);
    const index = indexOf(ids);
    for (const [offset, id] of ids.entries()) expect(index.get(id)).toBe(offset);
    expect(index.get("m-5000")).toBeUndefined();
    expect(index.get("")).toBeUndefined();
  });

  it("tells apart two ids whose hashes are equal", () => {
    // These two share a 31-bit hash (found by search): only the stored id can tell them apart.
    expect(indexOf(["m-116713"]).get("m-126827")).toBeUndefined();
    const both = indexOf(["m-116713", "m-126827"]);
    expect([both.get("m-116713"), both.get("m-126827")]).toEqual([0, 1]);
  });
});

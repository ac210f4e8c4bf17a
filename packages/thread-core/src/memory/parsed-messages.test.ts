import { describe, expect, it } from "vitest";
import { copyJson, ParsedMessages } from "./parsed-messages.js";

const message = (index: number) => ({
  id: `m-${index}`,
  role: "assistant",
  createdAt: "2026-11-23T06:00:00.000Z",
  contents: [
    { type: "text", text: `message ${index}` },
    { type: "function_call", callId: `c-${index}`, name: "tool", arguments: { list: [1, { deep: [true] }] } },
  ],
  metadata: { tags: ["a", "b"], nested: { value: null } },
});

const segmentOf = (count: number, size = (index: number) => message(index)) => ({
  texts: Array.from({ length: count }, (_, index) => JSON.stringify(size(index))),
});

describe("ParsedMessages", () => {
  it("hands every read its own copy, equal to the stored message, however often it is read", () => {
    const cache = new ParsedMessages();
    const segment = segmentOf(3);
    const stored = JSON.parse(segment.texts[1] as string);
    const reads = Array.from({ length: 4 }, () => cache.copyOf(segment, 1));
    for (const read of reads) expect(read).toEqual(stored);
    // Distinct objects at every depth: a first read (parsed), a second (kept), later ones (copies).
    for (const [index, read] of reads.entries()) {
      for (const other of reads.slice(index + 1)) {
        expect(read).not.toBe(other);
        expect(read.contents).not.toBe(other.contents);
        expect(read.contents[1]).not.toBe(other.contents[1]);
        expect(read.metadata?.tags).not.toBe(other.metadata?.tags);
      }
    }
    for (const read of reads) {
      (read.contents[1] as unknown as { arguments: { list: unknown[] } }).arguments.list.push("changed");
      (read.metadata as { nested: { value: unknown } }).nested.value = "changed";
      read.contents.pop();
    }
    expect(cache.copyOf(segment, 1)).toEqual(stored);
  });

  it("copies a __proto__ key as an own property, as JSON.parse makes it", () => {
    const text = '{"id":"p","__proto__":{"polluted":true},"list":[{"__proto__":[1]}]}';
    const cache = new ParsedMessages();
    const segment = { texts: [text] };
    for (let read = 0; read < 3; read++) {
      const copy = cache.copyOf(segment, 0) as unknown as Record<string, unknown>;
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(Object.hasOwn(copy, "__proto__")).toBe(true);
      expect(copy.polluted).toBeUndefined();
      expect(JSON.stringify(copy)).toBe(text);
    }
  });

  it("copies only own properties, whatever a polluted prototype adds", () => {
    const value = JSON.parse('{"a":{"b":[{"c":1}]}}');
    let text: string;
    let ownKeys: string[][];
    Object.defineProperty(Object.prototype, "injected", {
      value: { x: 1 },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      const copy = copyJson(value);
      ownKeys = [Object.keys(copy), Object.keys(copy.a), Object.keys(copy.a.b[0])];
      text = JSON.stringify(copy);
    } finally {
      delete (Object.prototype as { injected?: unknown }).injected;
    }
    // Checked once the prototype is clean again: the test runner itself walks prototypes.
    expect(ownKeys).toEqual([["a"], ["b"], ["c"]]);
    expect(text).toBe('{"a":{"b":[{"c":1}]}}');
  });

  it("stays bounded whatever the number of segments and messages read", () => {
    const cache = new ParsedMessages({ messages: 50, characters: 4000 });
    const segments = Array.from({ length: 200 }, () => segmentOf(10));
    for (let round = 0; round < 3; round++) {
      for (const segment of segments)
        for (let offset = 0; offset < 10; offset++) cache.copyOf(segment, offset);
      expect(cache.size).toBeLessThanOrEqual(100);
    }
    // Large messages fill a generation by their characters before their count.
    const large = segmentOf(20, (index) => ({ ...message(index), padding: "x".repeat(1500) }));
    for (let round = 0; round < 3; round++)
      for (let offset = 0; offset < 20; offset++) cache.copyOf(large, offset);
    expect(cache.size).toBeLessThanOrEqual(100);
    expect(cache.copyOf(large, 19)).toEqual(JSON.parse(large.texts[19] as string));
  });

  it("forgets a segment entirely", () => {
    const cache = new ParsedMessages({ messages: 4, characters: 100_000 });
    const kept = segmentOf(3);
    const freed = segmentOf(3);
    for (let round = 0; round < 2; round++) {
      for (const segment of [freed, kept])
        for (let offset = 0; offset < 3; offset++) cache.copyOf(segment, offset);
    }
    expect(cache.holds(freed)).toBe(true);
    cache.forget(freed);
    expect(cache.holds(freed)).toBe(false);
    cache.forget(kept);
    expect(cache.size).toBe(0);
  });
});

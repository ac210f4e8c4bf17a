import { describe, expect, it, vi } from "vitest";
import { chargeOf, copyJson, ParsedMessages } from "./parsed-messages.js";

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
    const cache = new ParsedMessages({ messages: 50, size: 4000 });
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
    const cache = new ParsedMessages({ messages: 4, size: 100_000 });
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

  it("charges a kept message its objects and arrays too: one of 21,000 empty objects is not kept", () => {
    // 63K characters, under a generation's 64K, but its parse takes about 1.3 MB of heap.
    const text = JSON.stringify({
      id: "big",
      role: "user",
      contents: [],
      metadata: { nested: Array.from({ length: 21_000 }, () => ({})) },
    });
    expect(text.length).toBeLessThan(64 * 1024);
    const cache = new ParsedMessages();
    expect(chargeOf(text)).toBeGreaterThan(cache.limits.size);
    const segment = { texts: [text] };
    const parse = vi.spyOn(JSON, "parse");
    try {
      for (let read = 0; read < 4; read++) expect(cache.copyOf(segment, 0).id).toBe("big");
      expect(parse).toHaveBeenCalledTimes(4);
    } finally {
      parse.mockRestore();
    }
    expect(cache.size).toBe(0);
  });

  it("holds at most a generation's budget of charge: messages of many small objects fill it by their objects", () => {
    const cache = new ParsedMessages();
    // About 1,500 characters each, but 400 objects: a charge of about 28K, so two fit a 64K generation.
    const segment = segmentOf(20, (index) => ({
      ...message(index),
      nested: Array.from({ length: 400 }, () => ({})),
    }));
    const charge = chargeOf(segment.texts[0] as string);
    expect(charge).toBeGreaterThan(15 * (segment.texts[0] as string).length);
    const perGeneration = Math.floor(cache.limits.size / charge);
    for (let round = 0; round < 3; round++) {
      for (let offset = 0; offset < 20; offset++) cache.copyOf(segment, offset);
      expect(cache.size).toBeLessThanOrEqual(2 * perGeneration);
    }
    expect(cache.copyOf(segment, 19)).toEqual(JSON.parse(segment.texts[19] as string));
  });

  it("never lets first reads push kept messages out: a long read of many segments only notes them", () => {
    const cache = new ParsedMessages({ messages: 8, size: 100_000 });
    const hot = segmentOf(5);
    for (let round = 0; round < 2; round++)
      for (let offset = 0; offset < 5; offset++) cache.copyOf(hot, offset);
    // 1,000 messages read once, 10 from each of 100 segments (every part short enough for the cache).
    const others = Array.from({ length: 100 }, () => segmentOf(10));
    for (const segment of others) for (let offset = 0; offset < 10; offset++) cache.copyOf(segment, offset);
    expect(cache.notes).toBeLessThanOrEqual(2 * cache.limits.notes);
    const parse = vi.spyOn(JSON, "parse");
    try {
      for (let offset = 0; offset < 5; offset++) expect(cache.copyOf(hot, offset)).toEqual(message(offset));
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it("clear drops every kept message and note", () => {
    const cache = new ParsedMessages();
    const segment = segmentOf(6);
    for (let offset = 0; offset < 6; offset++) cache.copyOf(segment, offset);
    for (let offset = 0; offset < 3; offset++) cache.copyOf(segment, offset);
    expect(cache.size).toBe(3);
    expect(cache.notes).toBe(3);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.notes).toBe(0);
    expect(cache.holds(segment)).toBe(false);
  });
});

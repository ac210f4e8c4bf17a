import { describe, expect, it } from "vitest";
import type { Message } from "../message.js";
import { OpenedMessages } from "./opened-messages.js";
import type { SealedUnit } from "./sealed-unit.js";

const KEY = { id: "k" };

function stored(
  offset: number,
  data = `data-${offset}`,
  owner?: string,
): { message: Message; unit: SealedUnit } {
  const unit: SealedUnit = {
    $sealed: 1,
    key: "k",
    ...(owner === undefined ? {} : { owner }),
    check: "check",
    nonce: `nonce-${offset}`,
    data,
    tag: `tag-${offset}`,
  };
  const message = { id: `m${offset}`, role: "user", createdAt: "2026-12-06T00:00:00.000Z", contents: [unit] };
  return { message: message as unknown as Message, unit };
}

function remember(
  cache: OpenedMessages<object>,
  segment: string,
  offset: number,
  data?: string,
  owner?: string,
) {
  const { message, unit } = stored(offset, data, owner);
  cache.set(segment, offset, message, unit, `{"text":"plain ${offset}"}`, KEY);
}

function recall(
  cache: OpenedMessages<object>,
  segment: string,
  offset: number,
  data?: string,
  owner?: string,
) {
  const { message, unit } = stored(offset, data, owner);
  return cache.get(segment, offset, message, unit)?.text;
}

describe("the plaintext an encrypted store remembers", () => {
  it("answers only for exactly the unit stored at exactly that place", () => {
    const cache = new OpenedMessages<object>();
    remember(cache, "s1", 3);
    expect(recall(cache, "s1", 3)).toBe('{"text":"plain 3"}');
    // Another byte of ciphertext, another offset or another segment: not remembered, opened (and checked) again.
    expect(recall(cache, "s1", 3, "data-3x")).toBeUndefined();
    expect(recall(cache, "s1", 4)).toBeUndefined();
    expect(recall(cache, "s2", 3)).toBeUndefined();
    const { message, unit } = stored(3);
    expect(cache.get("s1", 3, { ...message, createdAt: "2026-12-07T00:00:00.000Z" }, unit)).toBeUndefined();
    expect(cache.get("s1", 3, message, { ...unit, tag: "tag-other" })).toBeUndefined();
  });

  it("holds at most its capacity of messages and its budget of characters, however many it is given", () => {
    const cache = new OpenedMessages<object>(100, 1_000_000);
    for (let offset = 0; offset < 10_000; offset++) {
      remember(cache, "s", offset);
      expect(cache.size).toBeLessThanOrEqual(100);
    }
    // The newest are kept, the oldest are gone.
    expect(recall(cache, "s", 9_999)).toBeDefined();
    expect(recall(cache, "s", 0)).toBeUndefined();

    const small = new OpenedMessages<object>(1_000, 2_000);
    for (let offset = 0; offset < 1_000; offset++) {
      remember(small, "s", offset, "x".repeat(100));
      expect(small.characters).toBeLessThanOrEqual(2_000);
    }
    // One message larger than the budget allows is not kept at all.
    remember(small, "big", 0, "y".repeat(5_000));
    expect(recall(small, "big", 0, "y".repeat(5_000))).toBeUndefined();
  });

  it("keeps what is read often: an entry read again survives the generation it was put in", () => {
    const cache = new OpenedMessages<object>(10);
    remember(cache, "s", 0);
    for (let offset = 1; offset < 40; offset++) {
      remember(cache, "s", offset);
      expect(recall(cache, "s", 0)).toBeDefined();
    }
  });

  it("forgets an owner's messages and keeps the others'", () => {
    const cache = new OpenedMessages<object>();
    remember(cache, "s", 0, undefined, "ana");
    remember(cache, "s", 1, undefined, "ben");
    cache.forgetOwner("ana");
    expect(recall(cache, "s", 0, undefined, "ana")).toBeUndefined();
    expect(recall(cache, "s", 1, undefined, "ben")).toBeDefined();
    expect(cache.size).toBe(1);
  });

  it("shows no plaintext when inspected or turned into JSON", () => {
    const cache = new OpenedMessages<object>();
    remember(cache, "s", 0);
    expect(JSON.stringify(cache)).not.toContain("plain");
    expect(
      String(
        (cache as unknown as Record<symbol, () => string>)[Symbol.for("nodejs.util.inspect.custom")]?.(),
      ),
    ).not.toContain("plain");
  });
});

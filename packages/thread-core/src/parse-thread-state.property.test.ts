import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRegistry } from "./create-registry.js";
import { SkeinError } from "./errors.js";
import { createMemoryStore } from "./memory/memory-thread-type.js";
import { type Message, MessageListSchema, MessageSchema, normalizeMessage } from "./message.js";
import { parseThreadState } from "./parse-thread-state.js";

const registry = createRegistry();

const content = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string() }),
  fc.record({ type: fc.constant("reasoning"), text: fc.string() }),
  fc.record({
    type: fc.constant("function_call"),
    callId: fc.string({ minLength: 1 }),
    name: fc.string({ minLength: 1 }),
    arguments: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.string()),
  }),
  fc.record({
    type: fc.constant("function_result"),
    callId: fc.string({ minLength: 1 }),
    result: fc.jsonValue(),
  }),
  fc.record({ type: fc.constant("x-custom"), payload: fc.jsonValue() }),
);

// `__proto__` keys are refused on purpose (see "hostile input"), so round trips leave them out.
const message = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 40 }),
    role: fc.constantFrom("system", "user", "assistant", "tool"),
    contents: fc.array(content, { maxLength: 4 }),
    authorName: fc.option(fc.string(), { nil: undefined }),
  })
  .filter((value) => !JSON.stringify(value).includes('"__proto__"'));

/** JSON.parse(JSON.stringify(x)) for values fast-check builds (which may hold -0 and undefined). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("round trips", () => {
  it("any message round-trips through JSON equal", () => {
    fc.assert(
      fc.property(message, (input) => {
        const normalized = normalizeMessage(asJson(input));
        expect(normalizeMessage(asJson(normalized))).toEqual(normalized);
      }),
    );
  });

  it("any thread round-trips through JSON equal, with its history", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 12 }), fc.nat(12), async (inputs, cut) => {
        const store = createMemoryStore({ registry });
        const thread = await store.create({ metadata: { n: inputs.length } });
        const seen = new Set<string>();
        const unique = inputs.filter((input) => !seen.has(input.id) && seen.add(input.id));
        await thread.append(unique.map(asJson));
        if (unique.length > 0) {
          await thread.checkpoint("all");
          await thread.rollback((unique[Math.min(cut, unique.length - 1)] as { id: string }).id);
        }
        const json = JSON.stringify(thread);
        const again = await createMemoryStore({ registry }).open(JSON.parse(json));
        expect(await again.messages()).toEqual(await thread.messages());
        expect(await again.history()).toEqual(await thread.history());
        expect(JSON.stringify(again)).toBe(json);
      }),
      { numRuns: 60 },
    );
  });
});

describe("the fast message check", () => {
  it("accepts exactly what MessageSchema accepts", () => {
    const field = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.constant(undefined),
      fc.jsonValue(),
    );
    const candidate = fc.record(
      {
        id: fc.oneof(fc.string({ maxLength: 300 }), field),
        role: fc.oneof(fc.constantFrom("system", "user", "assistant", "tool", "wizard"), field),
        createdAt: fc.oneof(
          fc.constantFrom(
            "2026-11-21T22:39:36.000Z",
            "2026-13-01T00:00:00Z",
            "2026-11-21T22:39:36+01:00",
            "yesterday",
          ),
          field,
        ),
        authorName: field,
        metadata: fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.jsonValue())),
        contents: fc.oneof(
          fc.array(fc.oneof(content, fc.record({ type: fc.constantFrom("text", "reasoning"), text: field }))),
          field,
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(candidate, (value) => {
        const input = asJson(value);
        expect(MessageListSchema.safeParse([input]).success).toBe(MessageSchema.safeParse(input).success);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("hostile input", () => {
  const hostileKeys = fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "$type",
    "id",
    "segments",
    "end",
  );
  const mutated = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(fc.oneof(fc.string(), hostileKeys), fc.jsonValue()),
    fc.record(
      {
        $type: fc.constantFrom("memory", "redis", "fs", "x.y"),
        id: fc.jsonValue(),
        segments: fc.jsonValue(),
        end: fc.jsonValue(),
      },
      { requiredKeys: ["$type"] },
    ),
  );

  it("any JSON into parseThreadState yields a state or a SkeinError, and pollutes nothing", () => {
    fc.assert(
      fc.property(mutated, (input) => {
        const text = JSON.stringify(input);
        const parsed = JSON.parse(text.replace(/"(constructor|prototype)"/g, '"__proto__"'));
        for (const candidate of [input, parsed]) {
          try {
            parseThreadState(candidate, { registry });
          } catch (error) {
            if (!SkeinError.isInstance(error)) throw error;
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty("$type");
      }),
      { numRuns: 2000 },
    );
  });

  it("deep nesting is refused, not a stack overflow", () => {
    let deep: unknown = "bottom";
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    const error = catchError(() =>
      parseThreadState({ $type: "memory", id: "x", metadata: { deep } }, { registry }),
    );
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(error.message).toContain("deeper");
  });

  it("a __proto__ key is refused, never assigned", () => {
    const input = JSON.parse('{"$type":"memory","id":"x","metadata":{"__proto__":{"polluted":true}}}');
    const error = catchError(() => parseThreadState(input, { registry }));
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("memory states whose segments lie are refused when opened", async () => {
    const store = createMemoryStore({ registry });
    const base = { $type: "memory", id: "liar", createdAt: new Date().toISOString(), revision: 0 };
    const message: Message = normalizeMessage({ role: "user", text: "x" });
    const now = new Date().toISOString();
    const cases = [
      {
        ...base,
        end: { segment: "a", offset: 0 },
        segments: [{ id: "a", base: { segment: "a", offset: 0 }, start: 0, createdAt: now, messages: [] }],
      },
      {
        ...base,
        end: { segment: "a", offset: 5 },
        segments: [{ id: "a", base: null, start: 0, createdAt: now, messages: [message] }],
      },
      {
        ...base,
        end: { segment: "b", offset: 0 },
        segments: [{ id: "a", base: null, start: 0, createdAt: now, messages: [] }],
      },
      {
        ...base,
        end: { segment: "a", offset: 0 },
        segments: [{ id: "a", base: null, start: 3, createdAt: now, messages: [] }],
      },
    ];
    for (const state of cases) {
      const error = await store.open(state).then(
        () => new Error("opened"),
        (caught: unknown) => caught as Error,
      );
      expect(SkeinError.isInstance(error), error.message).toBe(true);
    }
  });
});

function catchError(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

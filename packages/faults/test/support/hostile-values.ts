import fc from "fast-check";

/** Keys that pollute prototypes, or that skein gives meaning to. */
export const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "$type",
  "$v",
  "id",
  "segments",
  "end",
  "events",
  "messages",
  "contents",
  "threads",
];

/** `value` under `key` as an own, enumerable property, even for `__proto__` (as `JSON.parse` makes it). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function nestArrays(depth: number, bottom: unknown): unknown {
  let value = bottom;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

function nestObjects(depth: number, key: string): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) {
    const next: Record<string, unknown> = {};
    setOwn(next, key, value);
    value = next;
  }
  return value;
}

/**
 * Values that break a document where they land: deep, huge, wide, of the wrong type, or keyed to pollute.
 * `maxDepth` bounds nesting where the value must survive `JSON.stringify`, which recurses.
 */
export function hostileJsonValues(maxDepth: number): fc.Arbitrary<[string, unknown]> {
  const labelled = (label: string) => (value: unknown) => [label, value] as [string, unknown];
  return fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(labelled("json")) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(0, -1, 1.5, 1e308, -0, true, false, null, "", [], {}, "1", "2026-13-45T99:99:99Z")
        // A fresh [] or {} per sample: the one constant instance, put into a document by one mutation and
        // into itself by the next, made a cycle (JSON.stringify threw in the generator) and leaked into
        // later samples.
        .map((value) => (typeof value === "object" && value !== null ? structuredClone(value) : value))
        .map(labelled("wrong-type")),
    },
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 150, max: maxDepth })
        .map((depth) => labelled("deep-array")(nestArrays(depth, 1))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 150, max: Math.min(maxDepth, 2_000) }), fc.constantFrom(...HOSTILE_KEYS))
        .map(([depth, key]) => labelled("deep-object")(nestObjects(depth, key))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 65_536, max: 1_000_000 }), fc.constantFrom("x", "🧵", "\u0000", "\\", '"'))
        .map(([length, unit]) => labelled("huge-string")(unit.repeat(Math.ceil(length / unit.length)))),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 10_000, max: 50_000 })
        .map((length) => labelled("wide-array")(Array.from({ length }, (_, index) => index))),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...HOSTILE_KEYS), fc.jsonValue({ maxDepth: 2 }))
        .map(([key, value]) => {
          const object: Record<string, unknown> = { polluted: true };
          setOwn(object, key, value);
          return labelled("hostile-key")(object);
        }),
    },
  );
}

/** What only JavaScript can pass: never valid, and never a crash either. */
export const nonJsonValue: fc.Arbitrary<[string, unknown]> = fc
  .constantFrom(
    () => undefined,
    () => Number.NaN,
    () => Number.POSITIVE_INFINITY,
    () => 10n,
    () => Symbol("s"),
    () => () => "function",
    () => new Date(0),
    () => new Map([["a", 1]]),
    () =>
      new (class Instance {
        field = 1;
      })(),
    () => {
      const cycle: Record<string, unknown> = { a: 1 };
      cycle.self = cycle;
      return cycle;
    },
    () =>
      Object.defineProperty({}, "trap", {
        enumerable: true,
        get() {
          throw new Error("a getter that throws");
        },
      }),
    () =>
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error("a proxy that throws");
          },
        },
      ),
  )
  .map((make) => ["non-json", make()] as [string, unknown]);

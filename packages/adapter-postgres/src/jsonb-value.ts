/** The one key of the wrapper that holds JSON `jsonb` cannot (see `toJsonb`). */
const WRAPPER = "$skeinJson";

/**
 * JSON text for a `jsonb` parameter. `jsonb` refuses NUL and unpaired surrogates in strings, which JSON
 * allows; a value holding one is kept as its JSON text inside `{ "$skeinJson": "…" }` (still `jsonb`), and
 * so is a value that itself looks like that wrapper, so every value reads back exactly.
 */
export function toJsonb(value: unknown): string {
  const text = JSON.stringify(value);
  // JSON.stringify writes \u escapes only for control characters and unpaired surrogates.
  const refused = /\\u(0000|d[89a-f])/i.test(text);
  return refused || isWrapper(value) ? JSON.stringify({ [WRAPPER]: text }) : text;
}

/** A value read from a `jsonb` column (node-postgres parses it), unwrapped. */
export function fromJsonb<Value>(value: unknown): Value {
  return (
    isWrapper(value) ? JSON.parse((value as Record<string, string>)[WRAPPER] as string) : value
  ) as Value;
}

function isWrapper(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    // The key first: it is almost never there, and then no list of keys is made (twice an append).
    Object.hasOwn(value, WRAPPER) &&
    Object.keys(value).length === 1
  );
}

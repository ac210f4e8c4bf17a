import { InvalidThreadStateError } from "./errors.js";

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Deeper documents are refused: they are hostile or broken, and would overflow recursive parsers. */
export const MAX_JSON_DEPTH = 200;

/**
 * Checks that `value` is plain JSON data (what `JSON.parse` can produce) before any schema sees it:
 * no `__proto__` keys, no functions, cycles, non-finite numbers or nesting deeper than MAX_JSON_DEPTH.
 * Iterative, so hostile depth cannot overflow the stack.
 */
export function assertJsonValue(value: unknown, makeError = jsonError): asserts value is JsonValue {
  const stack: Array<{ value: unknown; depth: number; path: Array<string | number> }> = [
    { value, depth: 0, path: [] },
  ];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop() as (typeof stack)[number];
    if (current === null || typeof current === "string" || typeof current === "boolean") continue;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) throw makeError("numbers must be finite", path);
      continue;
    }
    if (typeof current !== "object") throw makeError(`${typeof current} is not JSON`, path);
    if (depth >= MAX_JSON_DEPTH) throw makeError(`nesting is deeper than ${MAX_JSON_DEPTH} levels`, path);
    if (seen.has(current)) throw makeError("the value contains a cycle", path);
    seen.add(current);
    if (Array.isArray(current)) {
      current.forEach((item, index) => {
        stack.push({ value: item, depth: depth + 1, path: [...path, index] });
      });
      continue;
    }
    const prototype = Object.getPrototypeOf(current);
    if (prototype !== Object.prototype && prototype !== null) {
      throw makeError("only plain objects are JSON", path);
    }
    for (const key of Object.keys(current)) {
      if (key === "__proto__") throw makeError('the key "__proto__" is not allowed', path);
      stack.push({
        value: (current as Record<string, unknown>)[key],
        depth: depth + 1,
        path: [...path, key],
      });
    }
  }
}

function jsonError(detail: string, path: Array<string | number>): Error {
  return new InvalidThreadStateError(detail, path);
}

/** JSON with object keys sorted, so equal data gives equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of JSON data. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

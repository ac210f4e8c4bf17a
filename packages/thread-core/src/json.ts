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
  const problem = findJsonProblem(value, false);
  if (problem) {
    // Walk again, keeping paths this time, only to say where the problem is.
    const located = findJsonProblem(value, true) ?? problem;
    throw makeError(located.detail, located.path);
  }
}

interface JsonProblem {
  detail: string;
  path: Array<string | number>;
}

/** Iterative, so hostile depth cannot overflow the stack; paths are built only when asked for. */
function findJsonProblem(root: unknown, withPaths: boolean): JsonProblem | undefined {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  const paths: Array<Array<string | number>> = [[]];
  const seen = new Set<object>();
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop() as number;
    const path = withPaths ? (paths.pop() as Array<string | number>) : [];
    if (current === null || typeof current === "string" || typeof current === "boolean") continue;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return { detail: "numbers must be finite", path };
      continue;
    }
    if (typeof current !== "object") return { detail: `${typeof current} is not JSON`, path };
    if (depth >= MAX_JSON_DEPTH) return { detail: `nesting is deeper than ${MAX_JSON_DEPTH} levels`, path };
    if (seen.has(current)) return { detail: "the value contains a cycle", path };
    seen.add(current);
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        values.push(current[index]);
        depths.push(depth + 1);
        if (withPaths) paths.push([...path, index]);
      }
      continue;
    }
    const prototype = Object.getPrototypeOf(current);
    if (prototype !== Object.prototype && prototype !== null)
      return { detail: "only plain objects are JSON", path };
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue;
      if (key === "__proto__") return { detail: 'the key "__proto__" is not allowed', path };
      values.push((current as Record<string, unknown>)[key]);
      depths.push(depth + 1);
      if (withPaths) paths.push([...path, key]);
    }
  }
  return undefined;
}

function jsonError(detail: string, path: Array<string | number>): Error {
  return new InvalidThreadStateError(detail, path);
}

/** JSON with object keys sorted, so equal data gives equal text whatever the key order. */
export function canonicalJson(value: unknown, skipTopLevelKey?: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ",";
      text += canonicalJson(value[index] ?? null);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = "{";
  let first = true;
  for (const key of keys) {
    const child = record[key];
    if (child === undefined || key === skipTopLevelKey) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:${canonicalJson(child)}`;
    first = false;
  }
  return `${text}}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of JSON data. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

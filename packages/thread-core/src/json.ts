import { InvalidThreadStateError } from "./errors.js";

import type { JsonObject, JsonValue } from "./spec/json-value.js";

export type { JsonObject, JsonPrimitive, JsonValue } from "./spec/json-value.js";

/** Deeper documents are refused: they are hostile or broken, and would overflow recursive parsers. */
export const MAX_JSON_DEPTH = 200;

/** Where a value that `findJsonProblem` refuses goes wrong, and how. */
export interface JsonProblem {
  detail: string;
  /** From the checked value down to the offending part. */
  path: Array<string | number>;
}

/** Options of `assertJsonValue` and `findJsonProblem`: where the value sits, for the depth limit. */
export interface JsonCheckOptions {
  /**
   * How deep the value sits in the document it will be part of (a thread's metadata: 1, a message in an
   * export: 4), so that what a door accepts fits, whole, in the export that carries it. @default 0
   */
  depth?: number;
}

/**
 * Checks that `value` is plain JSON data that survives a round trip through JSON text unchanged, before any
 * schema sees it: plain objects and arrays, strings, booleans, null and finite numbers; no `__proto__` keys,
 * no object met twice (a cycle or a shared reference), nothing nested deeper than MAX_JSON_DEPTH. An object
 * property whose value is `undefined` counts as absent, as `JSON.stringify` leaves it out; an `undefined`
 * array element is refused (`JSON.stringify` would write `null`, a value the caller never gave). Every door
 * of a store (create, update, fork, append, save, import, open) reads what it is given through `jsonData`,
 * which applies this rule and drops the absent properties, so nothing accepted fails to export or to come
 * back in, and no door refuses what another accepts. Iterative, so hostile depth cannot overflow the stack.
 */
export function assertJsonValue(
  value: unknown,
  makeError: (detail: string, path: Array<string | number>) => Error = jsonError,
  options: JsonCheckOptions = {},
): asserts value is JsonValue {
  const problem = findJsonProblem(value, options);
  if (problem) throw makeError(problem.detail, problem.path);
}

/** The first reason `value` is not JSON data by the rules of `assertJsonValue`, or undefined when it is. */
export function findJsonProblem(value: unknown, options: JsonCheckOptions = {}): JsonProblem | undefined {
  const problem = walkJson(value, options.depth ?? 0, false);
  // Walk again, keeping paths this time, only to say where the problem is.
  return problem && (walkJson(value, options.depth ?? 0, true) ?? problem);
}

/**
 * `value` as the JSON data a store keeps: checked by the rules of `assertJsonValue`, and with every object
 * property whose value is `undefined` dropped, as `JSON.stringify` drops it. The one place where every door
 * applies that rule; the value itself when it holds no such property, else a copy.
 * @example const metadata = jsonData({ a: undefined, b: 1 }); // { b: 1 }
 */
export function jsonData<Value>(
  value: Value,
  makeError: (detail: string, path: Array<string | number>) => Error = jsonError,
  options: JsonCheckOptions = {},
): Value {
  const seen = { undefinedProperty: false };
  if (walkJson(value, options.depth ?? 0, false, seen)) {
    const problem = walkJson(value, options.depth ?? 0, true) as JsonProblem;
    throw makeError(problem.detail, problem.path);
  }
  // The value passed the walk, so JSON text holds all of it but the `undefined` properties.
  return seen.undefinedProperty ? cloneJson(value) : value;
}

/** Iterative, so hostile depth cannot overflow the stack; paths are built only when asked for. */
function walkJson(
  root: unknown,
  rootDepth: number,
  withPaths: boolean,
  seenUndefined: { undefinedProperty: boolean } = { undefinedProperty: false },
): JsonProblem | undefined {
  const values: unknown[] = [root];
  const depths: number[] = [rootDepth];
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
    if (seen.has(current))
      return {
        detail: "the same object appears twice (a cycle or a shared reference); JSON holds copies",
        path,
      };
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
      const child = (current as Record<string, unknown>)[key];
      if (child === undefined) {
        seenUndefined.undefinedProperty = true; // absent, as JSON.stringify leaves it out
        continue;
      }
      values.push(child);
      depths.push(depth + 1);
      if (withPaths) paths.push([...path, key]);
    }
  }
  return undefined;
}

function jsonError(detail: string, path: Array<string | number>): Error {
  return new InvalidThreadStateError(detail, path);
}

/**
 * A thread's `metadata` or `context` as `create`, `update` and `fork` receive it, read by `jsonData`: a JSON
 * object by the rules of `assertJsonValue`, at the depth it has in the thread's export, its `undefined`
 * properties dropped. `InvalidThreadStateError` names the path from the field down.
 */
export function jsonObjectField(value: unknown, field: string): JsonObject {
  if (!isPlainObject(value)) throw new InvalidThreadStateError(`${field} must be a JSON object`, [field]);
  return jsonData(value, (detail, path) => new InvalidThreadStateError(detail, [field, ...path]), {
    depth: 1,
  }) as JsonObject;
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

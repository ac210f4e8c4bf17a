/** A JSON value as `JSON.parse` gives it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object as `JSON.parse` gives it. */
export type JsonObject = { [key: string]: Json };

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object without the keys given; the order of the others is kept. */
export function withoutKeys(value: JsonObject, keys: Iterable<string>): JsonObject {
  const dropped = new Set(keys);
  return Object.fromEntries(Object.entries(value).filter(([key]) => !dropped.has(key)));
}

/** True when an object has no own keys. */
export function isEmptyObject(value: JsonObject): boolean {
  return Object.keys(value).length === 0;
}

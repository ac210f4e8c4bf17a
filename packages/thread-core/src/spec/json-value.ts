/** A JSON leaf: a string, a number, a boolean or null. */
export type JsonPrimitive = string | number | boolean | null;
/** Any JSON value: what survives `JSON.stringify` and `JSON.parse` unchanged. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: what thread states, metadata and context are. */
export type JsonObject = { [key: string]: JsonValue };

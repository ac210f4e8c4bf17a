import { SessionItemError } from "./session-errors.js";

/** The key of an encoded byte array: `{ "$skein.bytes": base64 }`. */
const BYTES = "$skein.bytes";
/**
 * The key of a value the message's contents hold already: `{ "$skein.ref": index }` stands for a part of
 * `contents[index]` (its text, its arguments, its result), so a message stores its text once.
 */
const REFERENCE = "$skein.ref";
/** The key that wraps an object whose own keys would read as an encoding: `{ "$skein.object": { … } }`. */
const OBJECT = "$skein.object";
const MARKERS = [BYTES, REFERENCE, OBJECT];

/** Whether `encodeValue` wrapped this object (its own keys looked like an encoding): its fields are not its own. */
export function isWrapped(value: unknown): boolean {
  return typeof value === "object" && value !== null && OBJECT in value && Object.keys(value).length === 1;
}

/** A value stored as a reference to the content at `index` (see `decodeValue`'s `resolve`). */
export function contentReference(index: number): Record<string, number> {
  return { [REFERENCE]: index };
}

/**
 * An item value as JSON a skein message can hold: bytes (`Uint8Array`, as `providerData` may carry) become
 * base64 under a marker key, and an object that happens to use a marker key is wrapped, so `decodeValue`
 * gives back a value deep-equal to the original. Values JSON cannot give back equal are refused before
 * anything is written, as are cycles, holes in arrays and fields whose getter throws (whose error is not
 * quoted: its text is the caller's and may hold a secret). Each field is read once.
 */
export function encodeValue(value: unknown, path: Array<string | number> = []): unknown {
  return encodeWithin(value, path, new Set());
}

function encodeWithin(value: unknown, path: Array<string | number>, ancestors: Set<object>): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new SessionItemError(path, "is a number JSON cannot hold");
    return value;
  }
  if (value instanceof Uint8Array) return { [BYTES]: Buffer.from(value).toString("base64") };
  if (typeof value === "object" && (Array.isArray(value) || isPlainObject(value))) {
    if (ancestors.has(value)) throw new SessionItemError(path, "contains itself (a cycle)");
    ancestors.add(value);
    try {
      return Array.isArray(value)
        ? encodeArray(value, path, ancestors)
        : encodeObject(value, path, ancestors);
    } finally {
      ancestors.delete(value);
    }
  }
  throw new SessionItemError(path, `is a ${typeof value === "object" ? "class instance" : typeof value}`);
}

function encodeArray(value: unknown[], path: Array<string | number>, ancestors: Set<object>): unknown[] {
  const length = readField(value, "length", path) as number;
  const encoded: unknown[] = [];
  for (let index = 0; index < length; index++) {
    // A hole reads as undefined, and JSON would write it as null: neither gives the array back.
    if (!Object.hasOwn(value, index)) throw new SessionItemError([...path, index], "is a hole in an array");
    const item = readField(value, index, [...path, index]);
    if (item === undefined) throw new SessionItemError([...path, index], "is undefined in an array");
    encoded.push(encodeWithin(item, [...path, index], ancestors));
  }
  return encoded;
}

function encodeObject(
  value: Record<string, unknown>,
  path: Array<string | number>,
  ancestors: Set<object>,
): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const key of readKeys(value, path)) {
    const item = readField(value, key, [...path, key]);
    // An absent key and an undefined one read back alike (as the SDK's JSON comparison treats them).
    if (item !== undefined) encoded[key] = encodeWithin(item, [...path, key], ancestors);
  }
  return MARKERS.some((marker) => marker in encoded) ? { [OBJECT]: encoded } : encoded;
}

/**
 * One field of a caller's value. A getter (or a proxy) that throws is reported without its error: the
 * error is the caller's own and its text may carry a secret, so it is neither quoted nor kept as `cause`.
 */
export function readField(value: object, key: string | number, path: Array<string | number>): unknown {
  try {
    return (value as Record<string | number, unknown>)[key];
  } catch {
    throw new SessionItemError(path, "could not be read (its getter threw; its error is not quoted)");
  }
}

function readKeys(value: object, path: Array<string | number>): string[] {
  let keys: string[];
  let own: string[];
  try {
    keys = Object.keys(value);
    own = Object.getOwnPropertyNames(value);
  } catch {
    throw new SessionItemError(path, "could not be read (its keys could not be listed)");
  }
  // A field JSON does not see (non-enumerable) would be dropped without a word: refused, as the SDK's own
  // session refuses it, rather than given back without it.
  const hidden = own.find((key) => !keys.includes(key));
  if (hidden !== undefined) {
    throw new SessionItemError([...path, hidden], "is a non-enumerable field, which the session cannot keep");
  }
  return keys;
}

/** The value `encodeValue` was given; `resolve` gives the value a content reference stands for. */
export function decodeValue(value: unknown, resolve: (index: number) => unknown = unresolved): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => decodeValue(item, resolve));
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1 && keys[0] === BYTES && typeof record[BYTES] === "string") {
    return new Uint8Array(Buffer.from(record[BYTES], "base64"));
  }
  if (keys.length === 1 && keys[0] === REFERENCE && typeof record[REFERENCE] === "number") {
    return resolve(record[REFERENCE]);
  }
  const inner =
    keys.length === 1 && keys[0] === OBJECT && isPlainObject(record[OBJECT])
      ? (record[OBJECT] as Record<string, unknown>)
      : record;
  const decoded: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(inner)) decoded[key] = decodeValue(item, resolve);
  return decoded;
}

function unresolved(index: number): never {
  throw new SessionItemError([], `refers to content ${index}, which is not there`);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

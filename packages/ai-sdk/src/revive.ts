import { isRecord, type Json, toJson } from "./namespace.js";

/** What a value held that JSON does not: a URL object or bytes, stored as text and given back as that kind. */
type Kind = "url" | "uint8array" | "buffer" | "arraybuffer";

/** Where in a stored value a URL or bytes were, and which kind, so `reviveValue` gives back the same objects. */
export interface Revive {
  path: Array<string | number>;
  as: Kind;
}

/**
 * A value as JSON with its URL objects as their `href` and its bytes as base64, and the marks that say where
 * they were. Used for tool outputs and 7.x file data, which may hold `URL` objects and bytes.
 */
export function storeValue(value: unknown): { json: Json[string]; revive: Revive[] } {
  const revive: Revive[] = [];
  const walk = (item: unknown, path: Array<string | number>): unknown => {
    if (item instanceof URL) {
      revive.push({ path, as: "url" });
      return item.href;
    }
    if (item instanceof ArrayBuffer) {
      revive.push({ path, as: "arraybuffer" });
      return Buffer.from(item).toString("base64");
    }
    if (item instanceof Uint8Array) {
      revive.push({ path, as: Buffer.isBuffer(item) ? "buffer" : "uint8array" });
      return Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString("base64");
    }
    if (Array.isArray(item)) return item.map((element, index) => walk(element, [...path, index]));
    if (isRecord(item)) {
      return Object.fromEntries(
        Object.entries(item).map(([key, field]) => [key, walk(field, [...path, key])]),
      );
    }
    return item;
  };
  return { json: toJson(walk(value, [])), revive };
}

/** The value `storeValue` was given, from its JSON and marks (none: the JSON itself). */
export function reviveValue(json: unknown, revive: unknown): unknown {
  if (!Array.isArray(revive) || revive.length === 0) return json;
  let root = structuredClone(json);
  for (const mark of revive as Revive[]) {
    const revived = reviveOne(get(root, mark.path), mark.as);
    if (mark.path.length === 0) root = revived;
    else set(root, mark.path, revived);
  }
  return root;
}

/** The marks to keep on a content's `"ai-sdk"` field: nothing when there were none. */
export function reviveKeep(revive: Revive[]): Json {
  return revive.length === 0 ? {} : { revive: toJson(revive) };
}

function reviveOne(text: unknown, kind: Kind): unknown {
  if (typeof text !== "string") return text;
  if (kind === "url") return URL.canParse(text) ? new URL(text) : text;
  const bytes = Buffer.from(text, "base64");
  if (kind === "buffer") return bytes;
  if (kind === "uint8array") return new Uint8Array(bytes);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

// Marks come from stored threads, which are untrusted: a path steps only through the value's own keys, so a
// mark naming `__proto__` or `constructor` reaches nothing and changes nothing outside the value.
function get(root: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((item, key) => (hasOwnKey(item, key) ? (item as Json)[key] : undefined), root);
}

function set(root: unknown, path: Array<string | number>, value: unknown): void {
  const parent = get(root, path.slice(0, -1));
  const key = path[path.length - 1] as string | number;
  if (hasOwnKey(parent, key)) (parent as Record<string | number, unknown>)[key] = value;
}

function hasOwnKey(item: unknown, key: string | number): boolean {
  return (isRecord(item) || Array.isArray(item)) && Object.hasOwn(item as object, key);
}

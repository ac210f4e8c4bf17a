import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";

/**
 * A value as the saver's serializer wrote it, in a form JSON can carry: the serializer's JSON as text (so a
 * person or a skein tool can read it), any other type as base64.
 */
export type StoredValue = { json: string } | { type: string; base64: string };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export async function storeValue(serde: SerializerProtocol, value: unknown): Promise<StoredValue> {
  const [type, data] = await serde.dumpsTyped(value);
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  if (type === "json") {
    try {
      return { json: strictUtf8.decode(bytes) };
    } catch {
      // Not UTF-8 (a custom serializer's JSON type): base64 keeps every byte.
    }
  }
  return { type, base64: Buffer.from(bytes).toString("base64") };
}

export async function loadValue(serde: SerializerProtocol, stored: StoredValue): Promise<unknown> {
  if ("json" in stored) return serde.loadsTyped("json", stored.json);
  return serde.loadsTyped(stored.type, new Uint8Array(Buffer.from(stored.base64, "base64")));
}

/** Two stored values are the same value exactly when their serialized forms are equal. */
export function sameStoredValue(left: StoredValue, right: StoredValue): boolean {
  if ("json" in left) return "json" in right && left.json === right.json;
  return !("json" in right) && left.type === right.type && left.base64 === right.base64;
}

import { InvalidKeysFileError } from "../cli/keys-file-error.js";

/** The bytes of each key (AES-256). */
const KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A keys file's `"keys"` field, `{ "2026-12": "<32 bytes, base64>" }`, decoded. Errors name the file and the
 * field (`keys["2026-12"]`), never a key. Look keys up with `Object.hasOwn`.
 */
export function decodedKeys(value: unknown, file: string): Record<string, Uint8Array> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidKeysFileError(file, "keys", "must be an object of base64 keys by id");
  }
  // No prototype: a key id such as "__proto__" or "constructor" is a key id like any other.
  const decoded: Record<string, Uint8Array> = Object.create(null);
  for (const [id, encoded] of Object.entries(value)) {
    const bytes =
      typeof encoded === "string" && BASE64.test(encoded) ? Buffer.from(encoded, "base64") : undefined;
    if (!bytes || bytes.byteLength !== KEY_BYTES) {
      throw new InvalidKeysFileError(
        file,
        `keys[${JSON.stringify(id)}]`,
        `must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`,
      );
    }
    decoded[id] = bytes;
  }
  return decoded;
}

/**
 * The fields of a keys file's JSON `text`, refusing anything but an object of the `known` fields (a misspelt
 * one, `"owner"` for `"owners"`, would otherwise be ignored and the store opened without what it names).
 * `shape` is what the error shows as expected.
 */
export function keysFileFields(
  text: string,
  file: string,
  known: readonly string[],
  shape: string,
): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake: it may be key material.
    throw new InvalidKeysFileError(file, "", "it is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidKeysFileError(file, "", `expected ${shape}`);
  }
  const unknown = Object.keys(value).find((name) => !known.includes(name));
  if (unknown !== undefined) {
    throw new InvalidKeysFileError(file, JSON.stringify(unknown), `is not one of ${known.join(", ")}`);
  }
  return value as Record<string, unknown>;
}

import { readFileSync } from "node:fs";
import type { EncryptionOptions } from "@skein/thread-core/driver";
import { InvalidConfigError } from "../cli/config-errors.js";

/** The bytes of each key (AES-256). */
const KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The keys to open an encrypted store with: the JSON file `--keys-file` (else `SKEIN_KEYS_FILE`) names, else
 * the JSON in `SKEIN_KEYS`; none when neither is set. Keys never come from the command line, where other
 * users of the machine can read them (`ps`) and shells keep them. The JSON:
 * `{ "current": "2026-12", "keys": { "2026-12": "<32 bytes, base64>", "2026-06": "<base64>" } }`.
 * Errors name the file and the key id, never a key.
 */
export function readEncryptionKeys(
  flag: string | undefined,
  environment: NodeJS.ProcessEnv,
): EncryptionOptions | undefined {
  const file = flag ?? (environment.SKEIN_KEYS_FILE || undefined);
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new InvalidConfigError(file, "it cannot be read", { cause: error });
    }
    return parseKeys(text, file);
  }
  const inline = environment.SKEIN_KEYS;
  return inline ? parseKeys(inline, "$SKEIN_KEYS") : undefined;
}

function parseKeys(text: string, where: string): EncryptionOptions {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake: it may be key material.
    throw new InvalidConfigError(where, "it is not JSON");
  }
  const { current, keys } = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (typeof current !== "string" || current === "") {
    throw new InvalidConfigError(where, `"current" must name the key new writes use`);
  }
  if (typeof keys !== "object" || keys === null || Array.isArray(keys)) {
    throw new InvalidConfigError(where, `"keys" must be an object of base64 keys by id`);
  }
  const decoded: Record<string, Uint8Array> = {};
  for (const [id, encoded] of Object.entries(keys)) {
    const bytes =
      typeof encoded === "string" && BASE64.test(encoded) ? Buffer.from(encoded, "base64") : undefined;
    if (!bytes || bytes.byteLength !== KEY_BYTES) {
      throw new InvalidConfigError(
        where,
        `key ${JSON.stringify(id)} must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32)`,
      );
    }
    decoded[id] = bytes;
  }
  if (!(current in decoded)) {
    throw new InvalidConfigError(
      where,
      `"current" is ${JSON.stringify(current)}, which "keys" does not hold`,
    );
  }
  return { keys: decoded, current };
}

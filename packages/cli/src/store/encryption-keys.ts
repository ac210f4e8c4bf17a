import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { EncryptionOptions } from "@skein/thread-core/driver";
import { InvalidKeysFileError } from "../cli/keys-file-error.js";
import { decodedKeys, keysFileFields } from "./keys-file-fields.js";
import { OwnerKeyDirectory } from "./owner-key-directory.js";

/**
 * The keys to open an encrypted store with: the JSON file `--keys-file` (else `SKEIN_KEYS_FILE`) names, else
 * the JSON in `SKEIN_KEYS`; none when neither is set. Keys never come from the command line, where other
 * users of the machine can read them (`ps`) and shells keep them. The JSON:
 * `{ "current": "2026-12", "keys": { "2026-12": "<32 bytes, base64>", "2026-06": "<base64>" } }`, and with
 * per-owner keys `"owners": "<directory>"` (relative to the file; `OwnerKeyDirectory`), where `keys` then
 * holds the keys of threads without an owner and may be left out.
 * Errors name the file and the field, never a key.
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
      throw new InvalidKeysFileError(file, "", "it cannot be read", { cause: error });
    }
    return parseKeys(text, file, dirname(resolve(file)));
  }
  const inline = environment.SKEIN_KEYS;
  return inline ? parseKeys(inline, "$SKEIN_KEYS", process.cwd()) : undefined;
}

function parseKeys(text: string, where: string, base: string): EncryptionOptions {
  const fields = keysFileFields(
    text,
    where,
    ["current", "keys", "owners"],
    '{ "current": ID, "keys": { ID: base64 32 bytes } }',
  );
  const { current, keys, owners } = fields;
  if (typeof current !== "string" || current === "") {
    throw new InvalidKeysFileError(where, "current", "must name the key new writes use");
  }
  if (owners !== undefined && (typeof owners !== "string" || owners === "")) {
    throw new InvalidKeysFileError(
      where,
      "owners",
      "must be the directory of the owners' key files (relative to the keys file)",
    );
  }
  const decoded = keys === undefined && owners !== undefined ? Object.create(null) : decodedKeys(keys, where);
  // Without owners every write uses it; with them, only writes of threads without an owner do.
  if (!Object.hasOwn(decoded, current) && (owners === undefined || keys !== undefined)) {
    throw new InvalidKeysFileError(
      where,
      "current",
      `is ${JSON.stringify(current)}, which "keys" does not hold`,
    );
  }
  if (owners === undefined) return { keys: decoded, current };
  return ownerKeys(current, decoded, new OwnerKeyDirectory(resolve(base, owners)));
}

/**
 * Per-owner keys: each owner's from their file in `directory`, a thread without an owner's from `keys`;
 * erasing an owner removes their file (`destroyOwnerKey`), which crypto-shreds them.
 */
function ownerKeys(
  current: string,
  keys: Readonly<Record<string, Uint8Array>>,
  directory: OwnerKeyDirectory,
): EncryptionOptions {
  return {
    current,
    ownerKeyProvider: async ({ owner, keyId }) => {
      const held = owner === undefined ? keys : await directory.keys(owner);
      return held && Object.hasOwn(held, keyId) ? held[keyId] : undefined;
    },
    destroyOwnerKey: (owner) => directory.destroy(owner),
  };
}

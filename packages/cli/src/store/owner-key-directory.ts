import { createHash } from "node:crypto";
import { open, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { InvalidKeysFileError } from "../cli/keys-file-error.js";
import { decodedKeys, keysFileFields } from "./keys-file-fields.js";

/** Bytes of a file name kept as they are: lowercase letters, digits, `-` and `_` (`a`–`z`, `0`–`9`). */
const KEPT = /^[a-z0-9_-]$/;
/** Longer encoded names (an owner id of up to 256 characters) are hashed: file systems stop at 255 bytes. */
const MAX_ENCODED = 200;
/** A surrogate outside a pair: UTF-8 has no bytes for it (both would become U+FFFD and share a file). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * The file name of `owner`'s keys: the owner id with every byte other than `a`–`z`, `0`–`9`, `-` and `_` written
 * `%XX` (its UTF-8 bytes, uppercase hex), then `.json`: `u-7` → `u-7.json`, `Ana` → `%41na.json`. Uppercase
 * letters are escaped so that two owners differing in case get two files on case-insensitive file systems;
 * `.` so that no name is `.`, `..` or hidden. Past 200 characters, or for an owner id with a lone surrogate:
 * `~` and the SHA-256 of the owner id's UTF-16LE bytes, in hex.
 * @example ownerKeyFileName("tenant/ana") // "tenant%2Fana.json"
 */
export function ownerKeyFileName(owner: string): string {
  if (LONE_SURROGATE.test(owner)) return hashedName(owner);
  let encoded = "";
  for (const byte of Buffer.from(owner, "utf8")) {
    const character = String.fromCharCode(byte);
    encoded += KEPT.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded.length > MAX_ENCODED ? hashedName(owner) : `${encoded}.json`;
}

/** `~` cannot start an escaped name (it would be `%7E`): hashed names never meet escaped ones. */
function hashedName(owner: string): string {
  return `~${createHash("sha256").update(Buffer.from(owner, "utf16le")).digest("hex")}.json`;
}

/**
 * The `owners` directory of a keys file: one file per owner, `{ "owner": "u-7", "keys": { "2026-12": "<base64>" } }`,
 * read when a key of that owner is first needed (never the whole directory, which may hold millions), and
 * removed to crypto-shred the owner.
 */
export class OwnerKeyDirectory {
  constructor(readonly directory: string) {}

  /** `owner`'s keys by id, or undefined when the owner has no file (no keys, or shredded). */
  async keys(owner: string): Promise<Readonly<Record<string, Uint8Array>> | undefined> {
    const file = join(this.directory, ownerKeyFileName(owner));
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw new InvalidKeysFileError(file, "", "it cannot be read", { cause: error });
    }
    const fields = keysFileFields(
      text,
      file,
      ["owner", "keys"],
      '{ "owner": ID, "keys": { ID: base64 32 bytes } }',
    );
    // The file says whose it is: a file copied or renamed to another owner's name is refused, not used.
    if (fields.owner !== owner) {
      throw new InvalidKeysFileError(
        file,
        "owner",
        `must be the owner whose file this is (${JSON.stringify(owner)}); it is ${
          typeof fields.owner === "string" ? JSON.stringify(fields.owner) : typeof fields.owner
        }`,
      );
    }
    return decodedKeys(fields.keys, file);
  }

  /**
   * Crypto-shreds `owner`: removes their file, then flushes the directory so the removal outlives a crash.
   * An owner without a file is already shredded: erasure asks again on every run.
   */
  async destroy(owner: string): Promise<void> {
    try {
      await unlink(join(this.directory, ownerKeyFileName(owner)));
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
      return;
    }
    const handle = await open(this.directory, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

import { createHash } from "node:crypto";

/** Longest name `encodeName` gives, so a suffix (`.json`, `.lock`, `thread.`) stays within 255 bytes. */
export const MAX_NAME_LENGTH = 200;
const LITERAL_BYTE = /^[a-z0-9_-]$/;
const ENCODED_NAME = /^(?:[a-z0-9_-]|%[0-9a-f]{2})+$/;
// Windows opens these as devices whatever the extension, so such a name is never used as it is.
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
/** Separates a long id's readable prefix from its hash; `encodeName` never produces it otherwise. */
const HASH_MARK = "=";
/** What each byte becomes in a name: itself when LITERAL_BYTE, else `%xx` (every append names its files). */
const BYTE_NAMES = Array.from({ length: 256 }, (_, byte) => {
  const character = String.fromCharCode(byte);
  return LITERAL_BYTE.test(character) ? character : `%${byte.toString(16).padStart(2, "0")}`;
});

/**
 * A safe file name for any id: lowercase letters, digits, `-` and `_` stay, every other UTF-8 byte becomes
 * `%xx` (lowercase hex). Uppercase letters are escaped too, so ids that differ in case differ on
 * case-insensitive file systems; `.`, `..`, `/`, `\` and device names like `con` cannot come out.
 * Names longer than MAX_NAME_LENGTH become a readable prefix plus a hash of the id; the full id is then kept
 * inside the file.
 * @example encodeName("Support/42") // "%53upport%2f42"
 */
export function encodeName(id: string): string {
  const bytes = Buffer.from(id, "utf8");
  let name = "";
  for (const byte of bytes) name += BYTE_NAMES[byte];
  if (WINDOWS_DEVICE.test(name)) name = `%${name.charCodeAt(0).toString(16)}${name.slice(1)}`;
  // Lone surrogates do not survive UTF-8, so such ids are always named by their (lossless) hash.
  if (name.length <= MAX_NAME_LENGTH && bytes.toString("utf8") === id) return name;
  const digest = createHash("sha256").update(Buffer.from(id, "utf16le")).digest("hex").slice(0, 40);
  return `${readablePrefix(name)}${HASH_MARK}${digest}`;
}

/** The id a name encodes, or undefined for a hashed name (read the id from the file) or a foreign file. */
export function decodeName(name: string): string | undefined {
  if (!ENCODED_NAME.test(name)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(name);
  } catch {
    return undefined;
  }
  return encodeName(id) === name ? id : undefined;
}

/** Whether a name was made from a hash, so the id must be read from inside the file. */
export function isHashedName(name: string): boolean {
  return name.includes(HASH_MARK);
}

function readablePrefix(name: string): string {
  let prefix = name.slice(0, 100);
  // Never cut an escape in half.
  const lastEscape = prefix.lastIndexOf("%");
  if (lastEscape > prefix.length - 3) prefix = prefix.slice(0, lastEscape);
  return prefix;
}

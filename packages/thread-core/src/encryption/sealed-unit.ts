import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { isPlainObject } from "../json.js";
import { DecryptionError, IntegrityError } from "./encryption-errors.js";
import type { RingKey } from "./key-ring.js";

/**
 * One encrypted value as a store keeps it: the key id and its check value in clear (so a reader knows which
 * key to use, and can tell a wrong key from tampering), then AES-256-GCM's nonce, ciphertext and tag.
 */
export interface SealedUnit {
  $sealed: 1;
  key: string;
  /** With per-owner keys, whose key sealed it (clear, like the thread's owner): the key to ask for. */
  owner?: string;
  check: string;
  nonce: string;
  data: string;
  tag: string;
}

/**
 * Where a unit lives, bound into it as associated data: a unit copied to another record, field, segment or
 * offset does not open there. `["message", segment, offset, messageId]`, `["metadata", recordId]`, …
 */
export type UnitPosition = readonly (string | number)[];

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts `value` (any JSON) under `key`, bound to `position`. `deterministic`: the nonce is derived from
 * the position and the value (a synthetic nonce), so sealing the same value at the same place again gives
 * the same unit. Messages are sealed so: a store compares a re-imported or retried message with the one it
 * holds byte for byte. A nonce repeats only for the same value at the same position, which reveals nothing.
 */
export function sealValue(
  value: unknown,
  position: UnitPosition,
  key: RingKey,
  options: { deterministic?: boolean } = {},
): SealedUnit {
  return sealText(JSON.stringify(value), position, key, options);
}

/** `sealValue` of a value already turned into JSON text (`text`), for a caller that keeps the text. */
export function sealText(
  text: string,
  position: UnitPosition,
  key: RingKey,
  options: { deterministic?: boolean } = {},
): SealedUnit {
  const associated = associatedText(key, position);
  // Strings go to node:crypto as they are (it encodes them as UTF-8 itself): no Buffer is made for the
  // plaintext, and the synthetic nonce's input (associated data, a NUL, the plaintext) is one update.
  const nonce = options.deterministic
    ? createHmac("sha256", key.nonceKey)
        .update(`${associated}\u0000${text}`, "utf8")
        .digest()
        .subarray(0, NONCE_BYTES)
    : randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.bytes, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associated, "utf8"));
  // AES-GCM is a stream mode: `final` only computes the tag and returns no bytes.
  const data = cipher.update(text, "utf8");
  cipher.final();
  return {
    $sealed: 1,
    key: key.id,
    ...(key.owner === undefined ? {} : { owner: key.owner }),
    check: key.check,
    nonce: nonce.toString("base64"),
    data: data.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
  };
}

/** Whether `value` has the shape of a sealed unit (its contents are checked only when it is opened). */
export function isSealedUnit(value: unknown): value is SealedUnit {
  return (
    isPlainObject(value) &&
    value.$sealed === 1 &&
    typeof value.key === "string" &&
    (value.owner === undefined || typeof value.owner === "string") &&
    typeof value.check === "string" &&
    typeof value.nonce === "string" &&
    typeof value.data === "string" &&
    typeof value.tag === "string"
  );
}

/**
 * The value `unit` holds, if it was sealed at `position` with `key` (the key its `key` field names):
 * `DecryptionError` when `key` is not the key that sealed it, `IntegrityError` when it was changed or moved.
 * `describe` names the unit in errors.
 */
export function openValue(
  unit: SealedUnit,
  position: UnitPosition,
  key: RingKey,
  describe: () => string,
): unknown {
  return JSON.parse(openText(unit, position, key, describe));
}

/** `openValue`'s JSON text, not parsed, for a caller that keeps the text. */
export function openText(
  unit: SealedUnit,
  position: UnitPosition,
  key: RingKey,
  describe: () => string,
): string {
  if (unit.check !== key.check || unit.owner !== key.owner) throw new DecryptionError(unit.key, describe());
  const nonce = Buffer.from(unit.nonce, "base64");
  const tag = Buffer.from(unit.tag, "base64");
  if (nonce.byteLength !== NONCE_BYTES || tag.byteLength !== TAG_BYTES) {
    throw new IntegrityError(describe(), "its nonce or tag has the wrong length");
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.bytes, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(key, position));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(unit.data, "base64")), decipher.final()]).toString(
      "utf8",
    );
  } catch (error) {
    throw new IntegrityError(describe(), "its authentication tag does not match where it is stored", {
      cause: error,
    });
  }
}

// An owner's key is also bound by name, so a unit cannot claim another owner's key under the same id.
function associatedData(key: RingKey, position: UnitPosition): Buffer {
  return Buffer.from(associatedText(key, position), "utf8");
}

function associatedText(key: RingKey, position: UnitPosition): string {
  const whose = key.owner === undefined ? [] : [{ owner: key.owner }];
  return JSON.stringify(["skein.sealed.v1", key.id, ...whose, ...position]);
}

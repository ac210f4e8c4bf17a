import { createHmac } from "node:crypto";
import { InvalidOptionError } from "../errors.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import { KeyNotFoundError } from "./encryption-errors.js";

/** The bytes of an AES-256 key. */
export const KEY_BYTES = 32;

/** A key ready for use: its bytes and the check value that says, before decrypting, whether a unit is its. */
export interface RingKey {
  readonly id: string;
  readonly bytes: Buffer;
  /** HMAC of a fixed text under the key: tells a wrong key (DecryptionError) from tampering (IntegrityError). */
  readonly check: string;
  /** A key derived from it for synthetic nonces (`sealValue`'s `deterministic`), never used to encrypt. */
  readonly nonceKey: Buffer;
}

const METHOD = "openStore";

/**
 * The keys of one store. Key material lives only in private fields, so neither `util.inspect`, nor
 * `JSON.stringify`, nor an error ever shows it; `toJSON` and inspection show the key ids at most.
 */
export class KeyRing {
  readonly current: string;
  readonly #listed = new Map<string, RingKey>();
  readonly #provider:
    | ((keyId: string) => Promise<Uint8Array | undefined> | Uint8Array | undefined)
    | undefined;
  readonly #fetched = new Map<string, Promise<RingKey>>();

  constructor(options: EncryptionOptions) {
    if (typeof options !== "object" || options === null) {
      throw new InvalidOptionError(
        METHOD,
        "encryption",
        "{ keys, current } or { keyProvider, current }",
        typeof options,
      );
    }
    if (typeof options.current !== "string" || options.current === "") {
      throw new InvalidOptionError(
        METHOD,
        "encryption.current",
        "the id of the key new writes use",
        typeof options.current,
      );
    }
    this.current = options.current;
    if ("keyProvider" in options && typeof options.keyProvider === "function") {
      this.#provider = options.keyProvider.bind(options);
      return;
    }
    const keys = (options as { keys?: unknown }).keys;
    if (typeof keys !== "object" || keys === null) {
      throw new InvalidOptionError(
        METHOD,
        "encryption.keys",
        "an object of 32-byte keys by id, or a keyProvider",
        typeof keys,
      );
    }
    for (const [id, bytes] of Object.entries(keys)) this.#listed.set(id, ringKey(id, bytes));
    if (!this.#listed.has(this.current)) throw new KeyNotFoundError(this.current);
  }

  /** The key under `keyId`, asking the provider once per id; `KeyNotFoundError` when there is none. */
  key(keyId: string): RingKey | Promise<RingKey> {
    const listed = this.#listed.get(keyId);
    if (listed) return listed;
    const provider = this.#provider;
    if (!provider) throw new KeyNotFoundError(keyId);
    let fetched = this.#fetched.get(keyId);
    if (!fetched) {
      fetched = fetchKey(provider, keyId).then((key) => {
        this.#listed.set(keyId, key);
        return key;
      });
      // A failed fetch is not kept: the next read asks again (a KMS may have been briefly away).
      fetched.catch(() => this.#fetched.delete(keyId));
      this.#fetched.set(keyId, fetched);
    }
    return fetched;
  }

  /** The key under `keyId` when it is already at hand, for synchronous reads. */
  keyNow(keyId: string): RingKey | undefined {
    return this.#listed.get(keyId);
  }

  toJSON(): { current: string } {
    return { current: this.current };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `KeyRing { current: ${JSON.stringify(this.current)} }`;
  }
}

async function fetchKey(
  provider: (keyId: string) => Promise<Uint8Array | undefined> | Uint8Array | undefined,
  keyId: string,
): Promise<RingKey> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await provider(keyId);
  } catch (error) {
    throw new KeyNotFoundError(keyId, { cause: error });
  }
  if (bytes === undefined) throw new KeyNotFoundError(keyId);
  return ringKey(keyId, bytes);
}

function ringKey(id: string, bytes: unknown): RingKey {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== KEY_BYTES) {
    // The value itself is never shown: it is (or is meant to be) key material.
    const given = bytes instanceof Uint8Array ? `${bytes.byteLength} bytes` : typeof bytes;
    throw new InvalidOptionError(
      METHOD,
      `encryption key ${JSON.stringify(id)}`,
      `${KEY_BYTES} bytes (AES-256)`,
      given,
    );
  }
  const copy = Buffer.from(bytes);
  const check = createHmac("sha256", copy)
    .update("skein key check v1")
    .digest()
    .subarray(0, 8)
    .toString("base64url");
  const nonceKey = createHmac("sha256", copy).update("skein nonce key v1").digest();
  return { id, bytes: copy, check, nonceKey };
}

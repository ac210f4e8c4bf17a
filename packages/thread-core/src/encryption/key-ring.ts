import { createHmac } from "node:crypto";
import { InvalidOptionError } from "../errors.js";
import type { EncryptionOptions, OwnerKeyRequest } from "../spec/encryption-options.js";
import { KeyNotFoundError } from "./encryption-errors.js";
import { OpenedMessages } from "./opened-messages.js";
import { OpenedUnits } from "./opened-units.js";

/** The bytes of an AES-256 key. */
export const KEY_BYTES = 32;

/** A key ready for use: its bytes and the check value that says, before decrypting, whether a unit is its. */
export interface RingKey {
  readonly id: string;
  /** With per-owner keys, whose key it is (absent: the store's key, or the key of threads without an owner). */
  readonly owner?: string;
  readonly bytes: Buffer;
  /** HMAC of a fixed text under the key: tells a wrong key (DecryptionError) from tampering (IntegrityError). */
  readonly check: string;
  /** A key derived from it for synthetic nonces (`sealValue`'s `deterministic`), never used to encrypt. */
  readonly nonceKey: Buffer;
  /** A key derived from it to authenticate where a thread's log ends (`record-end.ts`). */
  readonly endKey: Buffer;
}

const METHOD = "openStore";

/**
 * How many keys a provider gave this ring stay in memory (the least recently used go first; the next read
 * asks the provider again): with per-owner keys a server that touches many owners must not keep them all.
 */
export const MAX_PROVIDED_KEYS = 4_096;

/**
 * The keys of one store. Key material lives only in private fields, so neither `util.inspect`, nor
 * `JSON.stringify`, nor an error ever shows it; `toJSON` and inspection show the key ids at most.
 */
export class KeyRing {
  readonly current: string;
  /** Whether each owner has keys of its own (`ownerKeyProvider({ owner, keyId })`). */
  readonly perOwner: boolean;
  /** Whether units stored in clear read as they are (a migration window, `allowPlaintext`). */
  readonly allowPlaintext: boolean;
  /** The keys given in `keys`, for good. */
  readonly #listed = new Map<string, RingKey>();
  /** The keys a provider gave, least recently used first, at most `MAX_PROVIDED_KEYS`. */
  readonly #provided = new Map<string, RingKey>();
  readonly #provider:
    | ((request: OwnerKeyRequest) => Promise<Uint8Array | undefined> | Uint8Array | undefined)
    | undefined;
  readonly #destroy: ((owner: string) => Promise<void> | void) | undefined;
  readonly #fetched = new Map<string, Promise<RingKey>>();
  /** The keys `#listed` and `#provided` hold, by identity: an entry of `#opened` is served only while its key is here. */
  readonly #held = new WeakSet<RingKey>();
  readonly #opened = new OpenedMessages<RingKey>();
  readonly #openedUnits = new OpenedUnits<RingKey>();
  /** What else keeps plaintext by these keys, told when an owner's keys are forgotten (`onForgetOwner`). */
  readonly #forgetting = new Set<(owner: string) => void>();

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
    this.allowPlaintext = options.allowPlaintext === true;
    if ("ownerKeyProvider" in options) {
      const owned = options.ownerKeyProvider;
      if (typeof owned !== "function") {
        throw new InvalidOptionError(
          METHOD,
          "encryption.ownerKeyProvider",
          "a function ({ owner, keyId }) => 32-byte key",
          typeof owned,
        );
      }
      this.perOwner = true;
      this.#provider = owned.bind(options);
      const destroy = options.destroyOwnerKey;
      this.#destroy = typeof destroy === "function" ? destroy.bind(options) : undefined;
      return;
    }
    this.perOwner = false;
    this.#destroy = undefined;
    if ("keyProvider" in options && typeof options.keyProvider === "function") {
      const provider = options.keyProvider.bind(options);
      this.#provider = (request) => provider(request.keyId);
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
    for (const [id, bytes] of Object.entries(keys)) this.#list(slot(id, undefined), ringKey(id, bytes));
    if (!this.#listed.has(slot(this.current, undefined))) throw new KeyNotFoundError(this.current);
  }

  /**
   * The key under `keyId` (of `owner`, with per-owner keys; the owner is ignored otherwise), asking the
   * provider once per key; `KeyNotFoundError` when there is none.
   */
  key(keyId: string, owner?: string): RingKey | Promise<RingKey> {
    const whose = this.perOwner ? owner : undefined;
    const at = slot(keyId, whose);
    const listed = this.#listed.get(at);
    if (listed) return listed;
    const provided = this.#provided.get(at);
    if (provided) {
      // Used again: it goes last, the least recently used first.
      this.#provided.delete(at);
      this.#provided.set(at, provided);
      return provided;
    }
    const provider = this.#provider;
    if (!provider) throw new KeyNotFoundError(keyId);
    let fetched = this.#fetched.get(at);
    if (!fetched) {
      fetched = fetchKey(provider, { keyId, owner: whose }, this.perOwner).then((key) => {
        // Kept only while this fetch is still the one asked for: a key destroyed meanwhile is not kept.
        if (this.#fetched.get(at) === fetched) {
          this.#fetched.delete(at);
          this.#keepProvided(at, key);
        }
        return key;
      });
      // A failed fetch is not kept: the next read asks again (a KMS may have been briefly away).
      fetched.catch(() => this.#fetched.delete(at));
      this.#fetched.set(at, fetched);
    }
    return fetched;
  }

  /** The key new writes of `owner`'s threads use. */
  currentKey(owner: string | undefined): RingKey | Promise<RingKey> {
    return this.key(this.current, owner);
  }

  /** The key under `keyId` (of `owner`) when it is already at hand, for synchronous reads. */
  keyNow(keyId: string, owner?: string): RingKey | undefined {
    const at = slot(keyId, this.perOwner ? owner : undefined);
    return this.#listed.get(at) ?? this.#provided.get(at);
  }

  /**
   * The plaintext of messages these keys sealed or opened lately (bounded), so reading the same messages
   * again decrypts nothing. It goes with the keys: an owner's entries are forgotten with the owner's keys.
   */
  get openedMessages(): OpenedMessages<RingKey> {
    return this.#opened;
  }

  /** The plaintext of records' metadata and contexts these keys opened lately (`opened-units.ts`), as above. */
  get openedUnits(): OpenedUnits<RingKey> {
    return this.#openedUnits;
  }

  /** Whether `key` is one this ring still holds (not forgotten with its owner). */
  holds(key: RingKey): boolean {
    return this.#held.has(key);
  }

  #list(at: string, key: RingKey): void {
    this.#listed.set(at, key);
    this.#held.add(key);
  }

  #keepProvided(at: string, key: RingKey): void {
    this.#provided.set(at, key);
    this.#held.add(key);
    // The least recently used goes; its opened messages are no longer served (`holds`), and age out.
    while (this.#provided.size > MAX_PROVIDED_KEYS) {
      const [oldest, dropped] = this.#provided.entries().next().value as [string, RingKey];
      this.#provided.delete(oldest);
      this.#held.delete(dropped);
    }
  }

  /** Whether `destroyOwner` can destroy keys: per-owner keys whose provider has `destroy`. */
  get canDestroy(): boolean {
    return this.perOwner && this.#destroy !== undefined;
  }

  /**
   * Destroys `owner`'s keys through the provider's `destroyOwnerKey`, then forgets every key of theirs this
   * process holds, so no read here opens their units again. False, doing nothing, when it cannot (`canDestroy`).
   */
  async destroyOwner(owner: string): Promise<boolean> {
    const destroy = this.#destroy;
    if (!this.perOwner || !destroy) return false;
    // Forgotten before and after: a read racing the destroy cannot keep a key fetched just before it.
    this.forgetOwner(owner);
    await destroy(owner);
    this.forgetOwner(owner);
    return true;
  }

  /** Drops every key of `owner` held in memory: the next read asks the provider again. */
  forgetOwner(owner: string): void {
    const prefix = slot("", owner);
    for (const keys of [this.#listed, this.#provided]) {
      for (const [at, key] of [...keys]) {
        if (!at.startsWith(prefix)) continue;
        keys.delete(at);
        this.#held.delete(key);
      }
    }
    for (const at of [...this.#fetched.keys()]) if (at.startsWith(prefix)) this.#fetched.delete(at);
    this.#opened.forgetOwner(owner);
    this.#openedUnits.forgetOwner(owner);
    for (const forget of this.#forgetting) forget(owner);
  }

  /** Forgets every plaintext opened with these keys (an erasure: the threads' units are gone, whoever's key). */
  forgetOpened(): void {
    this.#opened.clear();
    this.#openedUnits.clear();
  }

  /**
   * Calls `forget` whenever an owner's keys are forgotten, for another cache of plaintext opened with them
   * (the store's encrypting driver registers its append queue's, once).
   */
  onForgetOwner(forget: (owner: string) => void): void {
    this.#forgetting.add(forget);
  }

  toJSON(): { current: string } {
    return { current: this.current };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `KeyRing { current: ${JSON.stringify(this.current)} }`;
  }
}

/** Where a key is kept in memory: by owner (none: "") and id; the separator is no character of an owner. */
function slot(keyId: string, owner: string | undefined): string {
  return `${owner === undefined ? "\u0000" : `o${owner}`}\u0001${keyId}`;
}

async function fetchKey(
  provider: (request: OwnerKeyRequest) => Promise<Uint8Array | undefined> | Uint8Array | undefined,
  request: OwnerKeyRequest,
  perOwner: boolean,
): Promise<RingKey> {
  const { keyId, owner } = request;
  const whose = perOwner ? { owner } : {};
  let bytes: Uint8Array | undefined;
  try {
    bytes = await provider(request);
  } catch (error) {
    throw new KeyNotFoundError(keyId, { ...whose, cause: error });
  }
  if (bytes === undefined) throw new KeyNotFoundError(keyId, whose);
  return ringKey(keyId, bytes, owner);
}

function ringKey(id: string, bytes: unknown, owner?: string): RingKey {
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
  const endKey = createHmac("sha256", copy).update("skein end key v1").digest();
  return { id, ...(owner === undefined ? {} : { owner }), bytes: copy, check, nonceKey, endKey };
}

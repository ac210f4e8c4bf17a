// What `openStore(url, { encryption })` and a store factory take to encrypt a local store at rest. Only types:
// ../encryption/ holds the decorator that does it.

/** What every form of the option shares. */
export interface EncryptionCommonOptions {
  /** The id of the key new writes use (with `perOwner`, the id of each owner's current key). */
  current: string;
  /**
   * A migration window for a store that held threads before encryption was turned on: units stored in
   * clear read as they are (instead of as `IntegrityError`) and `skein rekey` seals them. Turn it off again
   * once rekey reports no plaintext left: while it is on, plaintext put into the store is not detected.
   * @default false
   */
  allowPlaintext?: boolean;
}

/** Keys by id, each 32 bytes (AES-256): every listed key opens what it sealed; `current` seals new writes. */
export interface EncryptionKeys extends EncryptionCommonOptions {
  keys: Readonly<Record<string, Uint8Array>>;
}

/** Keys fetched on demand (a KMS): asked once per key id a process meets, then kept in memory. */
export interface EncryptionKeyProvider extends EncryptionCommonOptions {
  /** The 32-byte key under `keyId`, or undefined when there is none (a `KeyNotFoundError`). */
  keyProvider(keyId: string): Promise<Uint8Array | undefined> | Uint8Array | undefined;
}

/** Which key a per-owner provider is asked for: the owner of the thread (absent for a thread without one) and the key id. */
export interface OwnerKeyRequest {
  owner: string | undefined;
  keyId: string;
}

/**
 * A key per owner (crypto-shredding): each thread is sealed with its owner's key, so destroying that key
 * makes every copy of the owner's threads unreadable, backups included. Threads without an owner are asked
 * for with `owner: undefined` (a shared key, or none). A name of its own, not a second signature of
 * `keyProvider`, so TypeScript types either provider's argument without help.
 */
export interface EncryptionOwnerKeyProvider extends EncryptionCommonOptions {
  /** The owner's 32-byte key under `keyId`, or undefined when it has none or it was destroyed (`KeyNotFoundError`). */
  ownerKeyProvider(request: OwnerKeyRequest): Promise<Uint8Array | undefined> | Uint8Array | undefined;
  /** Destroys every key of `owner` in the application's key store; `store.shredOwner(owner)` calls it. */
  destroyOwnerKey?(owner: string): Promise<void> | void;
}

/** How a local store encrypts what it stores: a map of keys, a provider of them, or a provider per owner. */
export type EncryptionOptions = EncryptionKeys | EncryptionKeyProvider | EncryptionOwnerKeyProvider;

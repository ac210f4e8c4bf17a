// What `openStore(url, { encryption })` and a store factory take to encrypt a local store at rest. Only types:
// ../encryption/ holds the decorator that does it.

/** Keys by id, each 32 bytes (AES-256): every listed key opens what it sealed; `current` seals new writes. */
export interface EncryptionKeys {
  keys: Readonly<Record<string, Uint8Array>>;
  /** The id, among `keys`, of the key new writes use. */
  current: string;
}

/** Keys fetched on demand (a KMS): asked once per key id a process meets, then kept in memory. */
export interface EncryptionKeyProvider {
  /** The 32-byte key under `keyId`, or undefined when there is none (a `KeyNotFoundError`). */
  keyProvider(keyId: string): Promise<Uint8Array | undefined> | Uint8Array | undefined;
  /** The id of the key new writes use. */
  current: string;
}

/** How a local store encrypts what it stores: a map of keys, or a provider of them. */
export type EncryptionOptions = EncryptionKeys | EncryptionKeyProvider;

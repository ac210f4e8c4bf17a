import { quoteUntrusted, SkeinError, type SkeinErrorOptions } from "../errors.js";

/**
 * A sealed unit names a key the store was not given (`encryption.keys` lacks it, or `keyProvider` had none
 * for it). Nothing was read or written. Only the key id is named, never key material.
 */
export class KeyNotFoundError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.KeyNotFoundError";
  /** With per-owner keys, whose key is missing (absent: a thread without an owner, or a store-wide key). */
  readonly owner?: string;
  constructor(
    readonly keyId: string,
    options?: SkeinErrorOptions & { owner?: string | undefined },
  ) {
    const { owner, ...rest } = options ?? {};
    super(
      owner === undefined
        ? `No encryption key ${quoteUntrusted(keyId)}: add it to encryption.keys (or make keyProvider answer for it); keys that encrypted data must stay listed until \`skein rekey\` has moved that data to the current key.`
        : `No encryption key ${quoteUntrusted(keyId)} of owner ${quoteUntrusted(owner)}: keyProvider has none for them. If the owner's key was destroyed (crypto-shredded), their threads are unreadable for good; else make keyProvider answer for it.`,
      rest,
    );
    if (owner !== undefined) this.owner = owner;
  }
}

/**
 * A sealed unit could not be opened with the key its id names: the key under that id is not the one that
 * sealed it (a wrong key, or a key id reused for another key). Only the key id is named.
 */
export class DecryptionError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.DecryptionError";
  constructor(
    readonly keyId: string,
    /** What was being opened, as `message "m1" of segment "s1"`. */
    readonly unit: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Cannot decrypt ${unit}: the key given as ${quoteUntrusted(keyId)} is not the key that encrypted it. Give the store the key that was current when it was written, under the same id.`,
      options,
    );
  }
}

/**
 * Stored data failed authentication: a sealed unit was changed, cut, moved to another record, segment or
 * position, or replaced by plaintext. Nothing of it is returned. The store was written outside skein (or
 * damaged); restore it from a backup.
 */
export class IntegrityError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.IntegrityError";
  constructor(
    /** What failed, as `message "m1" of segment "s1"`. */
    readonly unit: string,
    /** Why, in words. */
    readonly reason: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Stored ${unit} failed its integrity check (${reason}); it was changed, cut or moved outside skein. Nothing of it was returned; restore the store from a backup.`,
      options,
    );
  }
}

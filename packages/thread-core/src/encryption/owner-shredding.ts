import type { LogDriver } from "../local/log-driver.js";
import { keyRingOf } from "./encrypting-log-driver.js";

/**
 * How an owner's threads on a store can be erased by destroying a key (crypto-shredding). The seam for
 * `store.erase({ owner })`: when `ownerShredding(driver)?.canDestroy`, erasure destroys the owner's key
 * after deleting and reports `method: "deleted+crypto-shredded"`, which also covers every backup and copy.
 */
export interface OwnerShredding {
  /** Whether `shred` can destroy keys: the store's `ownerKeyProvider` came with `destroyOwnerKey`. */
  readonly canDestroy: boolean;
  /**
   * Destroys every key of `owner` (the provider's `destroyOwnerKey`) and forgets those this process holds.
   * From then on every read of a unit sealed with them is a `KeyNotFoundError`; their threads still list
   * (id, owner, timestamps). False, doing nothing, when `canDestroy` is false.
   */
  shred(owner: string): Promise<boolean>;
}

/**
 * The crypto-shredding of the store that `driver` serves (through scopes), or undefined when it does not
 * seal each owner's threads with a key of theirs (no encryption, or one set of keys for the whole store).
 * What an owner wrote before per-owner keys were turned on, or in a thread that had another owner then,
 * is under another key: erasure deletes those threads rather than trusting a destroyed key for them.
 */
export function ownerShredding(driver: LogDriver): OwnerShredding | undefined {
  const ring = keyRingOf(driver);
  if (!ring?.perOwner) return undefined;
  return { canDestroy: ring.canDestroy, shred: (owner) => ring.destroyOwner(owner) };
}

import { ownerProblem } from "../catalogue/catalogue-fields.js";
import { InvalidOptionError, UnsupportedOperationError } from "../errors.js";
import type { LogDriver } from "../local/log-driver.js";
import { ownerShredding } from "./owner-shredding.js";

/** `store.shredOwner(owner)`: destroys the owner's keys, or refuses on a store that cannot. */
export async function shredOwner(driver: LogDriver, type: string, owner: string): Promise<void> {
  const problem = ownerProblem(owner);
  if (problem)
    throw new InvalidOptionError("store.shredOwner", "owner", `an owner (${problem})`, typeof owner);
  const shredding = ownerShredding(driver);
  if (!shredding?.canDestroy || !(await shredding.shred(owner))) {
    throw new UnsupportedOperationError(
      type,
      "store.shredOwner",
      shredding
        ? "the store's encryption has an ownerKeyProvider but no destroyOwnerKey; give one, or destroy the owner's key in your key store yourself"
        : "the store does not seal each owner's threads with a key of theirs; open it with encryption: { ownerKeyProvider, destroyOwnerKey, current }, or erase the owner's threads instead",
      { source: driver.source },
    );
  }
}

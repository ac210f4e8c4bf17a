import { CATALOGUE_KEY, catalogueOf } from "../catalogue/catalogue-fields.js";
import type { StoredRecord } from "../local/log-driver.js";
import { KeyNotFoundError } from "./encryption-errors.js";
import type { KeyRing } from "./key-ring.js";

/**
 * A record as `store.list` shows it on an encrypted store. A thread whose owner's key was destroyed
 * (crypto-shredded) still lists, with only what is stored clear: id, type, owner, timestamps and message
 * count; its title and metadata are gone with the key. Reading it (`get`, `export`) is a `KeyNotFoundError`.
 */
export async function openForListing(
  stored: StoredRecord,
  ring: KeyRing,
  open: (stored: StoredRecord) => Promise<StoredRecord>,
): Promise<StoredRecord> {
  try {
    return await open(stored);
  } catch (error) {
    if (!ring.perOwner || !KeyNotFoundError.isInstance(error) || error.owner === undefined) throw error;
    return clearPart(stored);
  }
}

function clearPart(stored: StoredRecord): StoredRecord {
  if (stored.kind === "state") {
    const { $type, owner, createdAt } = stored.state;
    return {
      ...stored,
      state: {
        ...($type === undefined ? {} : { $type }),
        ...(owner === undefined ? {} : { owner }),
        ...(createdAt === undefined ? {} : { createdAt }),
      },
    };
  }
  const { owner } = catalogueOf(stored.context);
  return {
    ...stored,
    metadata: {},
    context: owner === undefined ? {} : { [CATALOGUE_KEY]: { owner } },
    events: [],
  };
}

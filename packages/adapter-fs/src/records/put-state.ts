import { ConcurrencyError, ConflictError, type JsonObject } from "@skein/thread-core";
import type { StateRecord } from "@skein/thread-core/driver";
import { placeOf } from "../catalogue/catalogue-place.js";
import { SOURCE } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import type { Lease } from "../locks/lease.js";

/**
 * Saves a thread state (a remote or workflow thread, a lease, a config document) as the record under
 * `id`, replacing the previous one whole. Call it holding the thread's lock; under a `"state"` lock the
 * record is renamed through the lock's staging directory (`lease.staging`), so that a writer taking the
 * lock over from this one, stopped, fences its save off (`LockLostError`: nothing landed).
 */
export async function putStateRecord(
  storage: FsStorage,
  id: string,
  state: JsonObject,
  options: { ifRevision?: number },
  lease?: Pick<Lease, "staging">,
): Promise<StateRecord> {
  const existing = await storage.records.read(id);
  if (existing?.kind === "log") {
    throw new ConflictError(
      `Thread ${JSON.stringify(id)} is a local thread of this store; its state is its log.`,
      undefined,
      {
        source: SOURCE,
      },
    );
  }
  const revision = existing?.revision ?? 0;
  if (options.ifRevision !== undefined && options.ifRevision !== revision) {
    throw new ConcurrencyError(id, options.ifRevision, revision, { source: SOURCE });
  }
  const record: StateRecord = {
    kind: "state",
    id,
    revision: revision + 1,
    updatedAt: new Date().toISOString(),
    state: JSON.parse(JSON.stringify(state)) as JsonObject,
  };
  storage.listIndex.announce(id, placeOf(record), existing ? placeOf(existing) : null);
  await storage.records.write(record, lease?.staging);
  storage.listIndex.settle(id, placeOf(record));
  return record;
}

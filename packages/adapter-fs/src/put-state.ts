import { ConcurrencyError, ConflictError, type JsonObject } from "@skein/thread-core";
import type { StateRecord } from "@skein/thread-core/driver";
import { SOURCE } from "./errors.js";
import type { FsStorage } from "./fs-log-driver.js";

/**
 * Saves a thread state (a remote or workflow thread) as the record under `id`, replacing the previous one
 * whole. Call it holding the thread's lock.
 */
export async function putStateRecord(
  storage: FsStorage,
  id: string,
  state: JsonObject,
  options: { ifRevision?: number },
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
  await storage.records.write(record);
  return record;
}

import { ConcurrencyError, type Thread } from "@skein/thread-core";
import type { ThreadUpdate } from "@skein/thread-core/driver";
import { readServiceRecord, SERVICE_RECORD_KEY, type ServiceRecord } from "./service-record.js";

/** Enough for any realistic contention on one thread; past it the store is misbehaving, and we say so. */
const MAX_ATTEMPTS = 100;

/**
 * Applies a change computed from the thread's current metadata and context, with `ifRevision`, re-reading
 * and recomputing when another writer got there first (a runner appending, another service instance).
 * `plan` returns undefined when there is nothing to write; it may throw to refuse the change.
 */
export async function updateOptimistically(
  thread: Thread,
  plan: (thread: Thread) => ThreadUpdate | undefined,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const patch = plan(thread);
    if (!patch) return;
    try {
      const ifRevision = thread.capabilities.revisions ? thread.revision : undefined;
      await thread.update(patch, ifRevision === undefined ? {} : { ifRevision });
      return;
    } catch (error) {
      if (!isConcurrencyError(error) || attempt >= MAX_ATTEMPTS) throw error;
      await thread.refresh();
    }
  }
}

/**
 * Changes the service record kept in the thread's metadata; `change` returns the next record, or undefined
 * to leave it as it is. Resolves to the record as written (or as found).
 */
export async function changeServiceRecord(
  thread: Thread,
  change: (record: ServiceRecord) => ServiceRecord | undefined,
): Promise<ServiceRecord> {
  let result: ServiceRecord | undefined;
  await updateOptimistically(thread, (current) => {
    const record = readServiceRecord(current);
    const next = change(record);
    result = next ?? record;
    if (!next) return undefined;
    return { metadata: { ...current.metadata, [SERVICE_RECORD_KEY]: next } };
  });
  return result as ServiceRecord;
}

/** By marker, not `instanceof`: another installed copy of thread-core may have raised it. */
export function isConcurrencyError(error: unknown): boolean {
  return ConcurrencyError.isInstance(error);
}

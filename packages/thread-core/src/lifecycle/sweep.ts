import { ConcurrencyError, InvalidOptionError, ThreadNotFoundError } from "../errors.js";
import { deleteRecord, type LogDriver, type StoredRecord } from "../local/log-driver.js";
import { describeGiven, optionsObject } from "../option-value.js";
import type { SweepOptions, SweepProgress } from "../spec/retention.js";
import { MAX_LIST_LIMIT } from "../store/store.js";
import { expiryCandidates } from "./retention-candidates.js";
import { expiryOf, isExpired, type RetentionPolicy } from "./retention-policy.js";

/**
 * Deletes what expired in one driver's own scope (`store.sweep`), a batch at a time. Each thread is
 * deleted only at the revision the sweep read it at (`delete(id, { ifRevision })`), so a thread written to
 * after it was picked is skipped, not lost. A sweep holds no state of its own: killed or aborted, the
 * next one finds what is left. Deleting reclaims segments by reference, as every driver's `delete` does,
 * so a fork keeps the prefix it shares with an expired parent.
 */
export async function sweepExpired(
  driver: LogDriver,
  policy: RetentionPolicy | undefined,
  options: SweepOptions = {},
): Promise<SweepProgress> {
  const checked = optionsObject("store.sweep", options, "{ signal, onProgress }");
  const batchSize = checked.batchSize ?? 100;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_LIST_LIMIT) {
    throw new InvalidOptionError(
      "store.sweep",
      "batchSize",
      `a whole number from 1 to ${MAX_LIST_LIMIT}`,
      describeGiven(batchSize),
    );
  }
  if (checked.onProgress !== undefined && typeof checked.onProgress !== "function") {
    throw new InvalidOptionError(
      "store.sweep",
      "onProgress",
      "a function",
      describeGiven(checked.onProgress),
    );
  }
  const progress: SweepProgress = { examined: 0, deleted: 0, skipped: 0 };
  // One instant for the whole sweep: what expired before it started goes; what expires during it waits.
  const now = (policy?.now ?? Date.now)();
  checked.signal?.throwIfAborted();
  for await (const batch of expiryCandidates(driver, policy, now, batchSize)) {
    const outcomes = await Promise.all(batch.map((record) => sweepOne(driver, policy, record, now)));
    for (const outcome of outcomes) {
      if (outcome === "not expired") continue;
      progress.examined++;
      if (outcome === "deleted") progress.deleted++;
      if (outcome === "skipped") progress.skipped++;
    }
    checked.onProgress?.({ ...progress });
    checked.signal?.throwIfAborted();
  }
  return progress;
}

type Outcome = "deleted" | "skipped" | "gone" | "not expired";

async function sweepOne(
  driver: LogDriver,
  policy: RetentionPolicy | undefined,
  record: StoredRecord,
  now: number,
): Promise<Outcome> {
  const expiry = expiryOf(record, policy);
  if (expiry === undefined || expiry > now) return "not expired";
  if (!isExpired(record, policy, now)) return "skipped"; // kept by `keep`
  try {
    // Through `deleteRecord`, so the segments of a reply its crashed writer left streaming go too.
    const type = record.kind === "log" ? record.type : driver.nativeType;
    if (driver.fencedDelete) {
      return (await deleteRecord(driver, record.id, type, { ifRevision: record.revision }))
        ? "deleted"
        : "gone";
    }
    // A driver that cannot fence a delete: read again just before, so only a write in between is at risk.
    const fresh = await driver.read(record.id);
    if (!fresh) return "gone";
    if (fresh.revision !== record.revision) return "skipped";
    return (await deleteRecord(driver, record.id, type)) ? "deleted" : "gone";
  } catch (error) {
    // Written to since it was picked: it lives on, and its next expiry is measured from that write.
    if (ConcurrencyError.isInstance(error)) return "skipped";
    if (ThreadNotFoundError.isInstance(error)) return "gone";
    throw error;
  }
}

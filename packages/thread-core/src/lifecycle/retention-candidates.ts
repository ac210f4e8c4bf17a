import { catalogueOf } from "../catalogue/catalogue-fields.js";
import type { LogDriver, StoredRecord } from "../local/log-driver.js";
import { AFTER_SCOPED_KEYS, SCOPE_SEPARATOR } from "../local/scoped-log-driver.js";
import type { ListPosition } from "../spec/log-driver.js";
import type { ListOrder } from "../spec/thread-store.js";
import { expiryOf, type RetentionPolicy } from "./retention-policy.js";

/**
 * The records of a driver's own scope that may have expired at `now`, batch by batch (each at most
 * `batchSize`), for a sweep to check and delete. With an expiry index (`LogDriver.expiring`) and a
 * catalogue, it reads O(expired) records: threads past their own `expiresAt` from the index, idle ones
 * from the oldest end of the last-change order (which `idleFor` follows), old ones from the oldest end of
 * the creation order. Without them it reads every record of the scope once: O(store). A record may come
 * in more than one batch (expired by two rules); callers check each again and deletes are idempotent.
 */
export async function* expiryCandidates(
  driver: LogDriver,
  policy: RetentionPolicy | undefined,
  now: number,
  batchSize: number,
  /** "indexed only": leave out what only a scan would find (no full read for a count). */
  reach: "all" | "indexed only" = "all",
): AsyncGenerator<StoredRecord[]> {
  if ((!driver.expiring || !driver.catalogue) && reach === "all") {
    yield* scannedCandidates(driver, policy, now, batchSize);
    return;
  }
  const until = new Date(now).toISOString();
  const expiring = driver.expiring?.bind(driver);
  if (expiring)
    yield* walk(
      batchSize,
      (after, limit) => expiring({ scope: "", until, ...(after ? { after } : {}), limit }),
      (record) => (record.kind === "log" ? (catalogueOf(record.context).expiresAt ?? "") : ""),
    );
  const rules: Array<[ListOrder, number | undefined]> = [
    ["updated", policy?.idleFor],
    ["created", policy?.maxAge],
  ];
  for (const [order, age] of rules) {
    if (age === undefined || !driver.catalogue) continue;
    const cutoff = new Date(now - age).toISOString();
    const catalogue = driver.catalogue.bind(driver);
    const key = (record: StoredRecord) =>
      order === "updated" ? record.updatedAt : record.kind === "log" ? record.createdAt : "";
    yield* walk(
      batchSize,
      (after, limit) =>
        catalogue({ scope: "", order, direction: "asc", until: cutoff, ...(after ? { after } : {}), limit }),
      key,
      // The walk is ascending: the first record past the cutoff ends it, whatever the driver did with `until`.
      (record) => key(record) <= cutoff,
    );
  }
}

/** Pages through an ordered source by keyset position, stopping at a short page or the first record `within` refuses. */
async function* walk(
  batchSize: number,
  page: (after: ListPosition | undefined, limit: number) => Promise<StoredRecord[]>,
  key: (record: StoredRecord) => string,
  within: (record: StoredRecord) => boolean = () => true,
): AsyncGenerator<StoredRecord[]> {
  let after: ListPosition | undefined;
  for (;;) {
    const records = await page(after, batchSize);
    const kept = records.filter(within);
    if (kept.length > 0) yield kept;
    const last = records[records.length - 1];
    if (!last || records.length < batchSize || kept.length < records.length) return;
    after = { key: key(last), id: last.id };
  }
}

/** Every record of the scope, read once in id order; those expired at `now` yielded in batches. */
async function* scannedCandidates(
  driver: LogDriver,
  policy: RetentionPolicy | undefined,
  now: number,
  batchSize: number,
): AsyncGenerator<StoredRecord[]> {
  // Scoped keys sort first; start past them so a store never sweeps its scopes' threads (as scanCatalogue does).
  let after = AFTER_SCOPED_KEYS;
  for (;;) {
    const listed = await driver.list({ after, limit: batchSize });
    const records = await Promise.all(
      listed.filter((item) => !item.id.startsWith(SCOPE_SEPARATOR)).map((item) => driver.read(item.id)),
    );
    const expired = records.filter(
      (record): record is StoredRecord =>
        record !== undefined && (expiryOf(record, policy) ?? now + 1) <= now,
    );
    if (expired.length > 0) yield expired;
    const last = listed[listed.length - 1];
    if (!last || listed.length < batchSize) return;
    after = last.id;
  }
}

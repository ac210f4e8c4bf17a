import type { LogDriver, StoredRecord } from "../local/log-driver.js";
import { AFTER_SCOPED_KEYS, SCOPE_SEPARATOR } from "../local/scoped-log-driver.js";
import { catalogueEntry, orderKey } from "./catalogue-entry.js";
import { type CatalogueQuery, comparePositions, isAfterCursor, matchesQuery } from "./list-query.js";

/** How many records a scan reads at once. */
const SCAN_BATCH = 500;

/**
 * A page of the catalogue for a driver with no index of its own (`LogDriver.catalogue` absent): it walks
 * the driver's id listing and reads each record. In ascending id order it stops once the page is full; in
 * any other order, and with `owner` or `where`, it reads every record of the scope, so its cost grows with
 * the store, which is why the built-in drivers keep an index instead.
 */
export async function scanCatalogue(driver: LogDriver, query: CatalogueQuery): Promise<StoredRecord[]> {
  const idOrder = query.order === "id" && query.direction === "asc";
  const found: Array<{ record: StoredRecord; key: string }> = [];
  // Scoped keys sort first; start past them so a store never lists its scopes' threads. A scope whose name
  // sorts past that bound still shows up in batches, so keep reading until the ids end.
  let after =
    idOrder && query.after && query.after.id >= AFTER_SCOPED_KEYS ? query.after.id : AFTER_SCOPED_KEYS;
  for (;;) {
    const batch = await driver.list({ prefix: query.prefix, after, limit: SCAN_BATCH });
    const records = await Promise.all(
      batch.filter((item) => !item.id.startsWith(SCOPE_SEPARATOR)).map((item) => driver.read(item.id)),
    );
    for (const record of records) {
      if (!record) continue; // deleted since it was listed
      const entry = catalogueEntry(record);
      const key = orderKey(entry, query.order);
      if (isAfterCursor({ key, id: record.id }, query) && matchesQuery(entry, key, query)) {
        found.push({ record, key });
      }
    }
    const last = batch[batch.length - 1];
    if (batch.length < SCAN_BATCH || !last) break;
    if (idOrder && found.length >= query.limit) break;
    after = last.id;
  }
  const sign = query.direction === "asc" ? 1 : -1;
  found.sort(
    (a, b) => sign * comparePositions({ key: a.key, id: a.record.id }, { key: b.key, id: b.record.id }),
  );
  return found.slice(0, query.limit).map((item) => item.record);
}

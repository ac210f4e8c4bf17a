import { catalogueEntry, orderKey } from "../catalogue/catalogue-entry.js";
import { type CatalogueQuery, type CountQuery, matchesQuery } from "../catalogue/list-query.js";
import type { LogDriver, StoredRecord } from "../local/log-driver.js";
import { expiryCandidates } from "./retention-candidates.js";
import { isExpired, type RetentionPolicy } from "./retention-policy.js";

/**
 * A catalogue page without the threads that expired (gone for readers before any sweep): pages are read
 * again past the hidden ones until `query.limit` visible records are found or the listing ends, so a
 * page costs its size plus the expired threads no sweep has deleted yet.
 */
export async function visiblePage(
  query: CatalogueQuery,
  read: (query: CatalogueQuery) => Promise<StoredRecord[]>,
  hidden: (record: StoredRecord) => boolean,
): Promise<StoredRecord[]> {
  const found: StoredRecord[] = [];
  let page = query;
  for (;;) {
    const records = await read(page);
    for (const record of records) if (!hidden(record)) found.push(record);
    const last = records[records.length - 1];
    if (!last || records.length < page.limit || found.length >= query.limit)
      return found.slice(0, query.limit);
    page = { ...query, after: { key: orderKey(catalogueEntry(last), query.order), id: last.id } };
  }
}

/**
 * `countCatalogue` less the expired threads it still counts: those found through the driver's indexes,
 * O(expired). A driver without an expiry index (`LogDriver.expiring`) still counts threads past their own
 * `expiresAt` until a sweep deletes them (finding them would read every record); its README says so.
 */
export async function visibleCount(
  driver: LogDriver,
  policy: RetentionPolicy | undefined,
  query: CountQuery,
): Promise<number | undefined> {
  const counted = await driver.countCatalogue?.(query);
  if (counted === undefined) return undefined;
  const now = (policy?.now ?? Date.now)();
  const seen = new Set<string>();
  const filter = { ...query, order: "id", direction: "asc", limit: 1 } as const;
  for await (const batch of expiryCandidates(driver, policy, now, 500, "indexed only")) {
    for (const record of batch) {
      if (seen.has(record.id) || !isExpired(record, policy, now)) continue;
      if (!matchesQuery(catalogueEntry(record), "", filter)) continue;
      seen.add(record.id);
    }
  }
  return Math.max(0, counted - seen.size);
}

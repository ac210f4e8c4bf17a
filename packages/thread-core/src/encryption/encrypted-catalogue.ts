import { catalogueEntry, orderKey } from "../catalogue/catalogue-entry.js";
import { type CatalogueQuery, matchesQuery } from "../catalogue/list-query.js";
import type { StoredRecord } from "../local/log-driver.js";

/** How many records one page of the store's own index holds while a `where` is filtered after decryption. */
const FILTER_PAGE = 100;

/**
 * `catalogue` of an encrypted store. The store's index still serves scope, owner, prefix, order and cursor
 * (they are clear), but metadata is sealed, so `where` cannot be served by it: the index is paged through
 * without `where` and each record is opened and matched here. A `where` page therefore costs the records the
 * index walks past before it fills, not O(page): the documented price of sealed metadata. The owner is matched
 * again on the opened record, so a clear owner changed outside skein lists nothing it should not.
 */
export async function filteredCatalogue(
  query: CatalogueQuery,
  catalogue: (query: CatalogueQuery) => Promise<StoredRecord[]>,
  open: (record: StoredRecord) => Promise<StoredRecord>,
): Promise<StoredRecord[]> {
  const { where, ...served } = query;
  const pageSize = where === undefined ? query.limit : Math.max(query.limit, FILTER_PAGE);
  const found: StoredRecord[] = [];
  let after = query.after;
  while (found.length < query.limit) {
    const page = await catalogue({ ...served, ...(after ? { after } : {}), limit: pageSize });
    for (const stored of page) {
      const record = await open(stored);
      const entry = catalogueEntry(record);
      const key = orderKey(entry, query.order);
      after = { key: orderKey(catalogueEntry(stored), query.order), id: stored.id };
      if (!matchesQuery(entry, key, { ...query, until: undefined, prefix: undefined })) continue;
      found.push(record);
      if (found.length === query.limit) break;
    }
    if (page.length < pageSize) break;
  }
  return found;
}

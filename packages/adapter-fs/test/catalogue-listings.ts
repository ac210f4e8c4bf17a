import { type CatalogueQuery, scanCatalogue } from "@skein/thread-core/driver";
import { expect } from "vitest";
import type { fsStore } from "../src/index.js";

type Store = ReturnType<typeof fsStore>;

/** Every page of a listing, walked with a small page so that cursors are used. */
export async function walk(store: Store, options: Parameters<Store["list"]>[0]): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ ...options, limit: 4, cursor });
    ids.push(...page.items.map((item) => item.id));
    cursor = page.cursor;
  } while (cursor);
  return ids;
}

/**
 * Checks every listing of `store` (owners u, v and all; each order, both directions) against a scan of
 * every record, the catalogue-free way, and each count against the scan's length. Oldest first before
 * newest first: a thread the index has at a place it never reached (a change announced, not landed) is
 * met there after its true place by an ascending walk, which would miss it.
 */
export async function expectExactListings(store: Store): Promise<void> {
  for (const owner of ["u", "v", undefined]) {
    for (const order of ["updated", "created", "id"] as const) {
      for (const direction of ["asc", "desc"] as const) {
        const query: CatalogueQuery = {
          scope: "",
          ...(owner ? { owner } : {}),
          order,
          direction,
          limit: 100_000,
        };
        const scanned = (await scanCatalogue(store.driver, query)).map((record) => record.id);
        const label = `${owner ?? "all"} ${order} ${direction}`;
        expect(await walk(store, { owner, order, direction }), label).toEqual(scanned);
        if (order === "id" && direction === "asc")
          expect(await store.count({ owner }), label).toBe(scanned.length);
      }
    }
  }
}

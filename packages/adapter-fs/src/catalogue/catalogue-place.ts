import { catalogueEntry, orderKey, type StoredRecord } from "@skein/thread-core/driver";

/**
 * Where a record sits in the catalogue: its owner and the keys it sorts by in `created` and `updated`
 * order (as thread-core's `orderKey` spells them). `undefined` in a list of places stands for "no record".
 */
export interface CataloguePlace {
  owner?: string;
  created: string;
  updated: string;
}

/**
 * The places a thread may be at: after a change was announced (`CatalogueJournal.announce`) and before
 * anyone saw it land, both the place it moves to (first) and the place it had; `null` is "no record"
 * (a create not landed yet, a delete landed). Exactly one of them is true.
 */
export type CataloguePlaces = ReadonlyArray<CataloguePlace | null>;

/** The place of a stored record. */
export function placeOf(record: StoredRecord): CataloguePlace {
  const entry = catalogueEntry(record);
  return {
    ...(entry.owner === undefined ? {} : { owner: entry.owner }),
    created: orderKey(entry, "created"),
    updated: orderKey(entry, "updated"),
  };
}

export function samePlace(
  a: CataloguePlace | null | undefined,
  b: CataloguePlace | null | undefined,
): boolean {
  if (!a || !b) return !a && !b;
  return a.owner === b.owner && a.created === b.created && a.updated === b.updated;
}

/** The places as a journal line or snapshot keeps them: `[owner or null, created, updated]` or null. */
export type StoredPlace = [string | null, string, string] | null;

export function storePlace(place: CataloguePlace | null): StoredPlace {
  return place && [place.owner ?? null, place.created, place.updated];
}

/** A stored place read back; undefined for anything else (a line from a later version, a torn one). */
export function readPlace(value: unknown): CataloguePlace | null | undefined {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [owner, created, updated] = value;
  if (
    (owner !== null && typeof owner !== "string") ||
    typeof created !== "string" ||
    typeof updated !== "string"
  )
    return undefined;
  return { ...(owner === null ? {} : { owner }), created, updated };
}

import { catalogueEntry, orderKey, type StoredRecord } from "@skein/thread-core/driver";

/**
 * Where a record sits in the catalogue: its owner, the keys it sorts by in `created` and `updated` order
 * (as thread-core's `orderKey` spells them), and its own `expiresAt` as stored, by which a sweep finds it
 * (`LogDriver.expiring`). `null` in a list of places stands for "no record".
 */
export interface CataloguePlace {
  owner?: string;
  created: string;
  updated: string;
  expires?: string;
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
    ...(entry.expiresAt === undefined ? {} : { expires: entry.expiresAt }),
  };
}

export function samePlace(
  a: CataloguePlace | null | undefined,
  b: CataloguePlace | null | undefined,
): boolean {
  if (!a || !b) return !a && !b;
  return a.owner === b.owner && a.created === b.created && a.updated === b.updated && a.expires === b.expires;
}

/**
 * The places as a journal line or snapshot keeps them: `[owner or null, created, updated]`, with the
 * expiry as a fourth item when the thread has one (a place without it is written as before), or null.
 */
export type StoredPlace = [string | null, string, string] | [string | null, string, string, string] | null;

export function storePlace(place: CataloguePlace | null): StoredPlace {
  if (!place) return null;
  const owner = place.owner ?? null;
  return place.expires === undefined
    ? [owner, place.created, place.updated]
    : [owner, place.created, place.updated, place.expires];
}

/** A stored place read back; undefined for anything else (a line from a later version, a torn one). */
export function readPlace(value: unknown): CataloguePlace | null | undefined {
  if (value === null) return null;
  if (!Array.isArray(value) || (value.length !== 3 && value.length !== 4)) return undefined;
  const [owner, created, updated, expires] = value;
  if (
    (owner !== null && typeof owner !== "string") ||
    typeof created !== "string" ||
    typeof updated !== "string" ||
    (value.length === 4 && typeof expires !== "string")
  )
    return undefined;
  return {
    ...(owner === null ? {} : { owner }),
    created,
    updated,
    ...(typeof expires === "string" ? { expires } : {}),
  };
}

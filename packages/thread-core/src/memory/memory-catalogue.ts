import { catalogueEntry, orderKey } from "../catalogue/catalogue-entry.js";
import { type CatalogueQuery, type CountQuery, matchesQuery } from "../catalogue/list-query.js";
import type { StoredRecord } from "../local/log-driver.js";
import { SCOPE_SEPARATOR } from "../local/scoped-log-driver.js";
import type { ListOrder } from "../spec/thread-store.js";
import { SortedPositions } from "./sorted-positions.js";

/** One listing's positions in each order: a scope's threads, or one owner's in a scope. */
type Group = Record<ListOrder, SortedPositions>;

const ORDERS: readonly ListOrder[] = ["id", "updated", "created"];

/**
 * The memory store's index for `store.list`: per scope, every record, and per owner, that owner's, each
 * in id, last-change and creation order. A change moves a record within its groups (O(log n) to find,
 * few entries shifted at the newest end), so a page of one owner's newest threads reads only that page.
 */
export class MemoryCatalogue {
  readonly #groups = new Map<string, Group>();

  /** Indexes a record (new, or `previous` changed into it). */
  put(record: StoredRecord, previous?: StoredRecord): void {
    const entry = catalogueEntry(record);
    if (previous) {
      const before = catalogueEntry(previous);
      if (before.owner === entry.owner && orderKey(before, "created") === orderKey(entry, "created")) {
        // The common change (an append): the record only moves in last-change order, to the newest end.
        this.#move(record.id, entry.owner, orderKey(before, "updated"), orderKey(entry, "updated"));
        return;
      }
      this.remove(previous);
    }
    for (const name of groupNames(record.id, entry.owner)) {
      let group = this.#groups.get(name);
      if (!group) {
        group = { id: new SortedPositions(), updated: new SortedPositions(), created: new SortedPositions() };
        this.#groups.set(name, group);
      }
      for (const order of ORDERS) group[order].add({ key: orderKey(entry, order), id: record.id });
    }
  }

  #move(id: string, owner: string | undefined, from: string, to: string): void {
    if (from === to) return;
    for (const name of groupNames(id, owner)) {
      const positions = this.#groups.get(name)?.updated;
      positions?.remove({ key: from, id });
      positions?.add({ key: to, id });
    }
  }

  remove(record: StoredRecord): void {
    const entry = catalogueEntry(record);
    for (const name of groupNames(record.id, entry.owner)) {
      const group = this.#groups.get(name);
      if (!group) continue;
      for (const order of ORDERS) group[order].remove({ key: orderKey(entry, order), id: record.id });
      if (group.id.size === 0) this.#groups.delete(name);
    }
  }

  /** The page `query` asks for; `read` gives the stored record of an id. */
  page(query: CatalogueQuery, read: (id: string) => StoredRecord | undefined): StoredRecord[] {
    query = storedPrefix(query);
    const group = this.#groups.get(groupName(query.scope, query.owner));
    const found: StoredRecord[] = [];
    if (!group) return found;
    for (const position of group[query.order].walk(query.direction, query.after)) {
      if (found.length >= query.limit) break;
      const record = read(position.id);
      if (!record) continue;
      // Ascending by last change stops at the walk's bound: every later position is past it too.
      if (query.until !== undefined && query.direction === "asc" && position.key > query.until) break;
      if (matchesQuery(catalogueEntry(record), position.key, query)) found.push(record);
    }
    return found;
  }

  /** How many records match: the group's size, or, with `where`, a walk of the group's records in memory. */
  count(query: CountQuery, read: (id: string) => StoredRecord | undefined): number {
    const group = this.#groups.get(groupName(query.scope, query.owner));
    if (!group) return 0;
    if (!query.where) return group.id.size;
    let count = 0;
    for (const position of group.id.walk("asc")) {
      const record = read(position.id);
      if (
        record &&
        matchesQuery(catalogueEntry(record), "", { ...query, order: "id", direction: "asc", limit: 1 })
      )
        count++;
    }
    return count;
  }
}

/** The scope part of a stored id: up to its last scope separator (ids themselves hold none). */
function scopeOf(id: string): string {
  return id.slice(0, id.lastIndexOf(SCOPE_SEPARATOR) + 1);
}

function groupName(scope: string, owner: string | undefined): string {
  // The separator never occurs in an owner, so no scope and owner spell another pair's name.
  return owner === undefined ? `${scope}\u0000*` : `${scope}\u0000=${owner}`;
}

function groupNames(id: string, owner: string | undefined): string[] {
  const scope = scopeOf(id);
  return owner === undefined
    ? [groupName(scope, undefined)]
    : [groupName(scope, undefined), groupName(scope, owner)];
}

/**
 * The query with its prefix made one of stored ids: the index holds records under their stored ids (the scope's
 * key before the id), while a query's prefix is of the ids the scope shows.
 */
function storedPrefix(query: CatalogueQuery): CatalogueQuery {
  return query.prefix === undefined ? query : { ...query, prefix: query.scope + query.prefix };
}

import { type ListPosition, SortedPositions } from "@skein/thread-core/driver";
import { type CataloguePlace, type CataloguePlaces, samePlace } from "./catalogue-place.js";

/** What a listing sorts by (`ListOrder`): the id, the last change, or the creation. */
export type CatalogueOrder = "id" | "updated" | "created";

const ORDERS: readonly CatalogueOrder[] = ["id", "updated", "created"];

/**
 * Separates a scope's name in stored ids (thread-core's `SCOPE_SEPARATOR`, a control character no id
 * holds): a stored id's scope is everything up to its last one.
 */
const SCOPE_SEPARATOR = "\u001f";

/** One listing's threads: a scope's, or one owner's in a scope; each place of each thread in each order. */
interface Group {
  orders: Record<CatalogueOrder, SortedPositions>;
  /**
   * The places that carry their own expiry, by it (`key`: the `expiresAt` as stored): what a sweep walks.
   * Kept in a scope's group only (sweeps are per scope, not per owner).
   */
  expiring: SortedPositions;
  /** How many of each thread's places are in this group. */
  members: Map<string, number>;
  /** Threads that may also be outside the group (one of their places is elsewhere): a count reads them. */
  partial: Set<string>;
}

/**
 * The fs store's catalogue in memory: for every thread, the places it may be at (`CataloguePlaces`:
 * one, or two while a change is announced and not yet seen landed), and per group (a scope, or an owner
 * in a scope) every such place in id, last-change and creation order, and per scope by own expiry. A page
 * walks one group's order and reads each thread it meets; `learn` then narrows its places to the one the
 * record shows.
 */
export class CatalogueIndex {
  readonly #places = new Map<string, CataloguePlaces>();
  readonly #groups = new Map<string, Group>();

  get size(): number {
    return this.#places.size;
  }

  places(id: string): CataloguePlaces | undefined {
    return this.#places.get(id);
  }

  /** Every thread and its places, for a snapshot. */
  entries(): IterableIterator<[string, CataloguePlaces]> {
    return this.#places.entries();
  }

  /** Replaces the places of `id` (none, or only "no record": the thread leaves the index). */
  set(id: string, places: CataloguePlaces): void {
    const previous = this.#places.get(id);
    if (previous) this.#place(id, previous, -1);
    if (places.some((place) => place !== null)) {
      this.#places.set(id, places);
      this.#place(id, places, 1);
    } else this.#places.delete(id);
  }

  /**
   * What a read of the record showed (`null`: none). When it is the newest place, the change announced
   * last has landed and the others are forgotten; when it is none of them (a change not read from the
   * journal yet, or announced by a writer that lost its lock), it is added first, so this process lists
   * the thread where it is.
   */
  learn(id: string, real: CataloguePlace | null): void {
    const places = this.#places.get(id) ?? [];
    if (places.length > 0 && samePlace(places[0], real)) {
      if (places.length > 1) this.set(id, [real]);
      return;
    }
    if (places.some((place) => samePlace(place, real))) return;
    this.set(id, [real, ...places]);
  }

  /** The next position of group `name` in `order` after `after` (by value: the index may change between steps). */
  next(
    name: string,
    order: CatalogueOrder,
    direction: "asc" | "desc",
    after?: ListPosition,
  ): ListPosition | undefined {
    return this.#groups.get(name)?.orders[order].next(direction, after);
  }

  /** The next place of group `name` by own expiry after `after` (ascending, by value as `next`). */
  nextExpiring(name: string, after?: ListPosition): ListPosition | undefined {
    return this.#groups.get(name)?.expiring.next("asc", after);
  }

  /** How many threads are surely in group `name`, and those that may be (a count reads them). */
  members(name: string): { sure: number; maybe: string[] } {
    const group = this.#groups.get(name);
    if (!group) return { sure: 0, maybe: [] };
    return { sure: group.members.size - group.partial.size, maybe: [...group.partial] };
  }

  #place(id: string, places: CataloguePlaces, delta: 1 | -1): void {
    const scope = scopeOf(id);
    const touched = new Set<string>();
    for (const place of places) {
      if (!place) continue;
      for (const name of groupNamesOf(scope, place)) {
        touched.add(name);
        const group = this.#group(name);
        group.members.set(id, (group.members.get(id) ?? 0) + delta);
        for (const order of ORDERS) change(group.orders[order], { key: keyOf(place, order), id }, delta);
        // Only the scope's group: a sweep never asks for one owner's threads.
        if (place.expires !== undefined && name === groupName(scope, undefined))
          change(group.expiring, { key: place.expires, id }, delta);
      }
    }
    for (const name of touched) {
      const group = this.#group(name);
      const count = group.members.get(id) ?? 0;
      if (count <= 0) {
        group.members.delete(id);
        group.partial.delete(id);
      } else if (count < places.length) group.partial.add(id);
      else group.partial.delete(id);
      if (group.members.size === 0) this.#groups.delete(name);
    }
  }

  #group(name: string): Group {
    let group = this.#groups.get(name);
    if (!group) {
      group = {
        orders: { id: new SortedPositions(), updated: new SortedPositions(), created: new SortedPositions() },
        expiring: new SortedPositions(),
        members: new Map(),
        partial: new Set(),
      };
      this.#groups.set(name, group);
    }
    return group;
  }
}

function change(sorted: SortedPositions, position: ListPosition, delta: 1 | -1): void {
  if (delta === 1) sorted.add(position);
  else sorted.remove(position);
}

/** The key a place sorts by in `order` ("" in id order, as thread-core's `orderKey`). */
export function keyOf(place: CataloguePlace, order: CatalogueOrder): string {
  return order === "id" ? "" : order === "updated" ? place.updated : place.created;
}

/** The scope part of a stored id: up to its last scope separator ("" unscoped). */
export function scopeOf(id: string): string {
  return id.slice(0, id.lastIndexOf(SCOPE_SEPARATOR) + 1);
}

/** The group of a scope's threads (`owner` undefined) or of one owner's in it. */
export function groupName(scope: string, owner: string | undefined): string {
  // The separator never occurs in an owner, so no scope and owner spell another pair's name.
  return owner === undefined ? `${scope}\u0000*` : `${scope}\u0000=${owner}`;
}

function groupNamesOf(scope: string, place: CataloguePlace): string[] {
  return place.owner === undefined
    ? [groupName(scope, undefined)]
    : [groupName(scope, undefined), groupName(scope, place.owner)];
}

import { comparePositions, type ListPosition } from "../catalogue/list-query.js";

/**
 * Positions (key, id) kept in ascending order in two parallel arrays, found by binary search. A thread
 * that changes moves to the newest end, where removing and adding shift few entries; a page is read from
 * the cursor's place in O(log n + page). The memory store walks it with `walk`; a store whose index may
 * change between two steps of a walk (the fs catalogue repairs entries it reads) asks for the position
 * after the last one it saw with `next`, by value, so it never loses its place.
 */
export class SortedPositions {
  readonly #keys: string[] = [];
  readonly #ids: string[] = [];

  get size(): number {
    return this.#ids.length;
  }

  /** Adds `position`; one already there is not added twice. */
  add(position: ListPosition): void {
    const index = this.#lowerBound(position);
    if (index < this.#ids.length && this.#compareAt(index, position) === 0) return;
    if (index === this.#ids.length && (index === 0 || this.#compareAt(index - 1, position) < 0)) {
      this.#keys.push(position.key);
      this.#ids.push(position.id);
      return;
    }
    this.#keys.splice(index, 0, position.key);
    this.#ids.splice(index, 0, position.id);
  }

  remove(position: ListPosition): void {
    const index = this.#lowerBound(position);
    if (index < this.#ids.length && this.#compareAt(index, position) === 0) {
      this.#keys.splice(index, 1);
      this.#ids.splice(index, 1);
    }
  }

  /**
   * The positions after `after` (all without it) in `direction`, one at a time: the caller stops when
   * its page is full, so a page costs what it reads.
   */
  *walk(direction: "asc" | "desc", after?: ListPosition): Generator<ListPosition> {
    if (direction === "asc") {
      let index = after ? this.#upperBound(after) : 0;
      for (; index < this.#ids.length; index++) yield this.#at(index);
    } else {
      let index = (after ? this.#lowerBound(after) : this.#ids.length) - 1;
      for (; index >= 0; index--) yield this.#at(index);
    }
  }

  /** The first position strictly after `after` in `direction` (the first of all without it). */
  next(direction: "asc" | "desc", after?: ListPosition): ListPosition | undefined {
    if (direction === "asc") {
      const index = after ? this.#upperBound(after) : 0;
      return index < this.#ids.length ? this.#at(index) : undefined;
    }
    const index = (after ? this.#lowerBound(after) : this.#ids.length) - 1;
    return index >= 0 ? this.#at(index) : undefined;
  }

  #at(index: number): ListPosition {
    return { key: this.#keys[index] as string, id: this.#ids[index] as string };
  }

  #compareAt(index: number, position: ListPosition): number {
    return comparePositions(this.#at(index), position);
  }

  /** The first index whose position is not below `position`. */
  #lowerBound(position: ListPosition): number {
    let low = 0;
    let high = this.#ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compareAt(middle, position) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The first index whose position is above `position`. */
  #upperBound(position: ListPosition): number {
    let low = 0;
    let high = this.#ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compareAt(middle, position) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

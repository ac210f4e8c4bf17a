import { comparePositions, type ListPosition } from "@skein/thread-core/driver";

/**
 * Positions (key, id) in ascending order, found by binary search. A walk asks for the position after the
 * last one it saw (`next`), by value, so the index may change between two steps of a walk (a page that
 * repairs an entry it read) without the walk losing its place.
 */
export class SortedPositions {
  readonly #keys: string[] = [];
  readonly #ids: string[] = [];

  get size(): number {
    return this.#ids.length;
  }

  add(position: ListPosition): void {
    const index = this.#lowerBound(position);
    if (index < this.#ids.length && this.#compareAt(index, position) === 0) return;
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

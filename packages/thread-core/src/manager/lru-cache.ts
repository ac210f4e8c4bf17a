/**
 * A map that keeps at most `capacity` entries and forgets the least recently used one first, so a long-lived
 * manager's memory stays flat however many pairs it touches.
 */
export class LruCache<Key, Value> {
  readonly #entries = new Map<Key, Value>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError("the cache size is a positive integer");
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, now the most recently used. */
  get(key: Key): Value | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as Value;
    // A Map iterates in insertion order: re-inserting moves the entry to the newest end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: Key, value: Value): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as Key;
      this.#entries.delete(oldest);
    }
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Removes every entry whose value `matches`. */
  deleteWhere(matches: (value: Value) => boolean): void {
    for (const [key, value] of this.#entries) if (matches(value)) this.#entries.delete(key);
  }

  /** Removes the entry only if it still holds `value`, so a newer entry under the same key stays. */
  deleteIf(key: Key, value: Value): void {
    if (this.#entries.get(key) === value) this.#entries.delete(key);
  }
}

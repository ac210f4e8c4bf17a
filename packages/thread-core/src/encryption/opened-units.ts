import { LruCache } from "../manager/lru-cache.js";
import { type StoredUnit, sameStoredUnit } from "./opened-messages.js";

/** How many whole units (a record's metadata or context, a state) a codec remembers the plaintext of. */
export const OPENED_UNITS = 512;
/** Units whose ciphertext is longer than this many characters are opened every time (bounds the memory). */
export const OPENED_UNIT_CHARACTERS = 16 * 1024;

interface Entry<Key> {
  readonly unit: StoredUnit;
  readonly text: string;
  readonly key: Key;
}

/**
 * The plaintext of the records' metadata and contexts a store opened lately, by where each is bound
 * (`["context", recordId]`…) and exactly what is stored there. A store that reads a record back as a new
 * object each time (fs re-reads its record file; a thread's view reads the record first) would otherwise
 * decrypt its metadata and context on every read although neither changed. A unit that differs in any byte,
 * or was opened for another place, is opened (and checked) again, so tampering fails as it would without
 * this; the reader serves an entry only while the ring still holds the key that opened it (a shredded owner's
 * key is forgotten, and with it what it opened). Bounded: 512 units of at most 16 KiB of ciphertext each.
 */
export class OpenedUnits<Key> {
  readonly #entries = new LruCache<string, Entry<Key>>(OPENED_UNITS);

  /** The plaintext of `unit` opened at `position`, if exactly it was opened there before with `key`. */
  get(position: string, unit: StoredUnit): Entry<Key> | undefined {
    const entry = this.#entries.get(position);
    return entry && sameStoredUnit(entry.unit, unit) ? entry : undefined;
  }

  /** Remembers that `unit`, bound to `position`, holds `text`, opened with `key`. */
  set(position: string, unit: StoredUnit, text: string, key: Key): void {
    if (unit.data.length > OPENED_UNIT_CHARACTERS) return;
    // The stored fields are copied: the caller's object may be changed after.
    const { key: id, owner, check, nonce, data, tag } = unit;
    this.#entries.set(position, { unit: { key: id, owner, check, nonce, data, tag }, text, key });
  }

  /** Forgets every unit. */
  clear(): void {
    this.#entries.clear();
  }

  /** Forgets every unit opened with a key of `owner` (their plaintext goes with their keys). */
  forgetOwner(owner: string): void {
    this.#entries.deleteWhere((entry) => entry.unit.owner === owner);
  }

  // The entries are plaintext: never shown by inspection or JSON.
  toJSON(): { size: number } {
    return { size: this.#entries.size };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `OpenedUnits { size: ${this.#entries.size} }`;
  }
}

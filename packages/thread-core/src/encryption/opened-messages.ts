import type { Message } from "../message.js";

/**
 * The fields of a stored sealed unit that are compared (`sealed-unit.ts`'s `SealedUnit` has them; it is not
 * imported, since that file imports the key ring that owns this cache).
 */
export interface StoredUnit {
  readonly key: string;
  readonly owner?: string;
  readonly check: string;
  readonly nonce: string;
  readonly data: string;
  readonly tag: string;
}

/** How many messages' plaintext a store's keys remember at most. */
export const OPENED_MESSAGES = 10_000;
/** How many characters (stored units and their plaintext together) they remember at most: about 32 MiB. */
export const OPENED_CHARACTERS = 16 * 2 ** 20;

/** One message as it is stored, its plaintext, and the key that opened (or sealed) it. */
export interface OpenedEntry<Key> {
  readonly id: string;
  readonly role: string;
  readonly createdAt: string | undefined;
  readonly unit: StoredUnit;
  readonly text: string;
  readonly key: Key;
  readonly characters: number;
}

/** Entries by segment, then by offset (a sparse array: a long thread's newest offsets are large). */
class Generation<Key> {
  readonly segments = new Map<string, OpenedEntry<Key>[]>();
  size = 0;
  characters = 0;

  get(segment: string, offset: number): OpenedEntry<Key> | undefined {
    return this.segments.get(segment)?.[offset];
  }

  set(segment: string, offset: number, entry: OpenedEntry<Key>): void {
    let entries = this.segments.get(segment);
    if (!entries) {
      entries = [];
      this.segments.set(segment, entries);
    }
    const previous = entries[offset];
    if (previous) {
      this.size--;
      this.characters -= previous.characters;
    }
    entries[offset] = entry;
    this.size++;
    this.characters += entry.characters;
  }

  forgetOwner(owner: string): void {
    for (const entries of this.segments.values()) {
      entries.forEach((entry, offset) => {
        if (entry.unit.owner !== owner) return;
        delete entries[offset];
        this.size--;
        this.characters -= entry.characters;
      });
    }
  }
}

/**
 * The plaintext of the messages a store sealed or opened lately, by where each is stored (segment and
 * offset) and exactly what is stored there: reading the newest messages of a thread again (each turn of a
 * conversation views them) costs a comparison of the stored unit, not a decryption. A unit that differs in
 * any byte, or sits anywhere else, is opened (and checked) again, so tampering still fails as it would
 * without this. Bounded by count and by characters: entries go into a young generation; when it holds half
 * of either budget, the old one is dropped whole and the young one becomes old (an entry read from the old
 * one moves back to the young one), so what is read often stays and nothing is ever scanned or shifted. The
 * key ring that owns it forgets an owner's entries with the owner's keys, and a reader serves an entry only
 * while the ring still holds the key that opened it (`RecordCodec`).
 */
export class OpenedMessages<Key> {
  #young = new Generation<Key>();
  #old = new Generation<Key>();
  /** How many entries, and characters, a generation holds at most. */
  readonly #perGeneration: { entries: number; characters: number };

  constructor(
    readonly capacity = OPENED_MESSAGES,
    readonly maxCharacters = OPENED_CHARACTERS,
  ) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError("the capacity is an integer ≥ 2");
    this.#perGeneration = { entries: Math.floor(capacity / 2), characters: maxCharacters / 2 };
  }

  /** How many entries it holds (an entry read again from the old generation is counted in both). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** How many characters its entries' units and plaintexts hold (counted as `size` counts). */
  get characters(): number {
    return this.#young.characters + this.#old.characters;
  }

  /** The entry of `stored` (whose sealed unit is `unit`) at `offset` of `segment`, if exactly it is remembered. */
  get(segment: string, offset: number, stored: Message, unit: StoredUnit): OpenedEntry<Key> | undefined {
    const young = this.#young.get(segment, offset);
    if (young) return sameMessage(young, stored, unit) ? young : undefined;
    const old = this.#old.get(segment, offset);
    if (!old || !sameMessage(old, stored, unit)) return undefined;
    this.#add(segment, offset, old);
    return old;
  }

  /** Remembers that `unit`, stored as `stored` at `offset` of `segment`, holds `text`, opened with `key`. */
  set(segment: string, offset: number, stored: Message, unit: StoredUnit, text: string, key: Key): void {
    const characters = unit.data.length + text.length;
    // One message larger than a generation's budget would only push everything else out.
    if (characters > this.#perGeneration.characters) return;
    this.#add(segment, offset, {
      id: stored.id,
      role: stored.role,
      createdAt: stored.createdAt,
      unit,
      text,
      key,
      characters,
    });
  }

  /** Forgets every message. */
  clear(): void {
    this.#young = new Generation();
    this.#old = new Generation();
  }

  /** Forgets every message sealed with a key of `owner`. */
  forgetOwner(owner: string): void {
    this.#young.forgetOwner(owner);
    this.#old.forgetOwner(owner);
  }

  #add(segment: string, offset: number, entry: OpenedEntry<Key>): void {
    const young = this.#young;
    const limit = this.#perGeneration;
    if (young.size + 1 > limit.entries || young.characters + entry.characters > limit.characters) {
      this.#old = young;
      this.#young = new Generation();
    }
    this.#young.set(segment, offset, entry);
  }

  // The entries are plaintext: never shown by inspection or JSON.
  toJSON(): { size: number } {
    return { size: this.size };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `OpenedMessages { size: ${this.size} }`;
  }
}

// Everything a message's unit is bound to (its place aside) and everything stored in it.
function sameMessage<Key>(entry: OpenedEntry<Key>, stored: Message, unit: StoredUnit): boolean {
  return (
    entry.id === stored.id &&
    entry.role === stored.role &&
    entry.createdAt === stored.createdAt &&
    sameStoredUnit(entry.unit, unit)
  );
}

/** Whether two stored units hold the same bytes under the same key (`opened-units.ts` compares so too). */
export function sameStoredUnit(held: StoredUnit, unit: StoredUnit): boolean {
  return (
    held.data === unit.data &&
    held.tag === unit.tag &&
    held.nonce === unit.nonce &&
    held.key === unit.key &&
    held.check === unit.check &&
    held.owner === unit.owner
  );
}

import type { Message } from "../message.js";

/** Reads of more messages than this parse directly: a long read (a page of history, an export) would only evict. */
export const CACHED_READ_MAX = 64;

/** What the cache reads of a segment: its texts, which never change at an offset once written. */
export interface TextSource {
  readonly texts: readonly string[];
}

/** Per segment, per offset: the parsed message, or null for one read only once so far. */
type Generation = Map<TextSource, Map<number, Message | null>>;

/**
 * Recently read messages of a memory store, parsed, so that reading the same messages again (an agent's view
 * of a thread's newest messages, every turn) copies an object instead of parsing its text: a copy costs about
 * a ninth of a parse (60 against 540 ns for a 300-byte message). Every reader still gets its own copy; the
 * parsed objects here are never handed out.
 *
 * A message is kept parsed from its second read on: the first read hands out its parse and only notes the
 * offset, so reads that never repeat (many threads each read once) cost a lookup more than a parse, not a copy
 * and a kept object more. Bounded per store, whatever the number of threads: two generations of at most
 * `messages` entries and `characters` of parsed text each (by default about 100 KB of heap for 300-byte
 * messages, at most about 200 KB for larger ones: a few percent of a 10,000-message store, so memory per
 * message stays within 1.5x its raw JSON); when the young one fills, it becomes the old one and the old one
 * is dropped. The driver calls `forget` when it frees a segment, so no freed segment stays reachable from here.
 */
export class ParsedMessages {
  #young: Generation = new Map();
  #old: Generation = new Map();
  #youngEntries = 0;
  #oldEntries = 0;
  #youngCharacters = 0;

  constructor(
    readonly limits: { messages: number; characters: number } = { messages: 128, characters: 64 * 1024 },
  ) {}

  /** How many offsets are held, parsed or noted (at most twice `limits.messages`). */
  get size(): number {
    return this.#youngEntries + this.#oldEntries;
  }

  /** Whether a segment has entries here. */
  holds(segment: TextSource): boolean {
    return this.#young.has(segment) || this.#old.has(segment);
  }

  /** A fresh copy of the message at `offset` of `segment`. */
  copyOf(segment: TextSource, offset: number): Message {
    let entry = this.#young.get(segment)?.get(offset);
    if (entry === undefined) {
      entry = this.#old.get(segment)?.get(offset);
      // Read again while old: young again.
      if (entry !== undefined) this.#put(segment, offset, entry);
    }
    if (entry) return copyJson(entry);
    const text = segment.texts[offset] as string;
    const parsed = JSON.parse(text) as Message;
    if (entry === undefined) {
      this.#put(segment, offset, null);
      return parsed;
    }
    // A text larger than a whole generation is not kept: it would evict everything else.
    if (text.length <= this.limits.characters) this.#put(segment, offset, parsed);
    return copyJson(parsed);
  }

  /** Drops every entry of a segment the store frees. */
  forget(segment: TextSource): void {
    const young = this.#young.get(segment);
    const old = this.#old.get(segment);
    if (young) {
      this.#youngEntries -= young.size;
      for (const [offset, entry] of young) {
        if (entry) this.#youngCharacters -= (segment.texts[offset] as string).length;
      }
      this.#young.delete(segment);
    }
    if (old) {
      this.#oldEntries -= old.size;
      this.#old.delete(segment);
    }
  }

  #put(segment: TextSource, offset: number, entry: Message | null): void {
    const characters = entry ? (segment.texts[offset] as string).length : 0;
    let entries = this.#young.get(segment);
    const fresh = entries?.has(offset) !== true;
    if (
      (fresh && this.#youngEntries >= this.limits.messages) ||
      this.#youngCharacters + characters > this.limits.characters
    ) {
      this.#old = this.#young;
      this.#oldEntries = this.#youngEntries;
      this.#young = new Map();
      this.#youngEntries = 0;
      this.#youngCharacters = 0;
      entries = undefined;
    }
    if (entries === undefined) {
      entries = new Map();
      this.#young.set(segment, entries);
    }
    if (!entries.has(offset)) this.#youngEntries++;
    entries.set(offset, entry);
    this.#youngCharacters += characters;
  }
}

/**
 * A deep copy of a value `JSON.parse` made: plain objects, arrays and primitives only. Strings are immutable, so
 * they are shared rather than copied. Each object is copied by spread, which V8 does in one step for the
 * shapes JSON.parse makes (60 ns for a message, against 150 property by property), and which defines a
 * `__proto__` key as an own property, as JSON.parse does, where an assignment would set the prototype.
 */
export function copyJson<Value>(value: Value): Value {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const copy = value.slice();
    for (let index = 0; index < copy.length; index++) {
      const child = copy[index];
      if (typeof child === "object" && child !== null) copy[index] = copyJson(child);
    }
    return copy as Value;
  }
  const copy = { ...value } as Record<string, unknown>;
  for (const key in copy) {
    const child = copy[key];
    // Own keys only: `for in` also visits what a polluted prototype adds. Assigning to an own "__proto__"
    // property writes that property.
    if (typeof child === "object" && child !== null && Object.hasOwn(copy, key)) copy[key] = copyJson(child);
  }
  return copy as Value;
}

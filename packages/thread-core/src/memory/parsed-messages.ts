import type { Message } from "../message.js";
import { ReadNotes } from "./read-notes.js";
import type { TextSource } from "./text-source.js";

/**
 * Reads of more messages than this from one segment parse directly: a long read (a page of history, an export)
 * would only evict. A long read of many short segments goes through the cache segment by segment; its first
 * reads only note offsets, which never push a kept message out (see ReadNotes).
 */
export const CACHED_READ_MAX = 64;

export type { TextSource } from "./text-source.js";

/** A kept message and what it is charged against its generation's budget. */
interface Kept {
  message: Message;
  charge: number;
}

/** Per segment, per offset: the kept message. */
type Generation = Map<TextSource, Map<number, Kept>>;

/** What the cache holds at most per generation. */
export interface ParsedLimits {
  /** Kept messages. */
  messages: number;
  /** The kept messages' total charge (see `chargeOf`). */
  size: number;
  /** Offsets noted as read once (see ReadNotes). */
  notes: number;
}

/**
 * What a kept message costs its generation: its text's length plus 64 per object or array. A parsed object or
 * array takes 40 to 60 bytes of heap more than its text (an empty object about 62, an empty array 37), so a
 * message of many small objects takes up to 25 times its text in heap; its charge follows its heap instead
 * (measured: the parsed heap is 0.8 to 1.3 times the charge for such messages, 1 for one long text, up to 1.9
 * for thousands of short strings or fractional numbers, which the charge does not count). Every `{` and `[`
 * is counted, in strings too: an overcount keeps less, never more.
 */
export function chargeOf(text: string): number {
  let containers = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x5b) containers++; // `{` or `[`
  }
  return text.length + CONTAINER_CHARGE * containers;
}

const CONTAINER_CHARGE = 64;

/**
 * Recently read messages of a memory store, parsed, so that reading the same messages again (an agent's view
 * of a thread's newest messages, every turn) copies an object instead of parsing its text: a copy costs about
 * a ninth of a parse (60 against 540 ns for a 300-byte message). Every reader still gets its own copy; the
 * parsed objects here are never handed out.
 *
 * A message is kept parsed from its second read on: the first read hands out its parse and only notes the
 * offset (in ReadNotes, apart, so first reads never push a kept message out), so reads that never repeat (many
 * threads each read once) cost a lookup more than a parse, not a copy and a kept object more. Bounded per store,
 * whatever the number of threads: two generations of at most `messages` kept messages and `size` of charge
 * each (`chargeOf`: its text's length plus 64 per object or array), so by default at most 256 messages and
 * 128K of charge. That is at most about 170 KB of heap (measured with the notes: 1.2 times the charge for
 * 300-byte messages, about 100 KB for 155 of them; up to 1.3 times for messages of many small objects), or
 * about 250 KB for messages made of thousands of short strings or fractional numbers, which the charge does
 * not count: a few percent of a 10,000-message store. A message charged more than a whole generation is not
 * kept. When the young generation fills, it becomes the old one and the old one is dropped; the notes (at
 * most 512 offsets by default) rotate the same way on their own. The driver calls `forget` when it frees a
 * segment and `clear` when the store closes, so no freed segment stays reachable from here.
 */
export class ParsedMessages {
  readonly limits: ParsedLimits;
  readonly #notes: ReadNotes;
  #young: Generation = new Map();
  #old: Generation = new Map();
  #youngEntries = 0;
  #oldEntries = 0;
  #youngSize = 0;

  constructor(limits: Partial<ParsedLimits> = {}) {
    this.limits = { messages: 128, size: 64 * 1024, notes: 256, ...limits };
    this.#notes = new ReadNotes(this.limits.notes);
  }

  /** How many messages are kept parsed (at most twice `limits.messages`). */
  get size(): number {
    return this.#youngEntries + this.#oldEntries;
  }

  /** How many offsets are noted as read once (at most twice `limits.notes`). */
  get notes(): number {
    return this.#notes.size;
  }

  /** Whether a segment has kept messages here. */
  holds(segment: TextSource): boolean {
    return this.#young.has(segment) || this.#old.has(segment);
  }

  /** A fresh copy of the message at `offset` of `segment`. */
  copyOf(segment: TextSource, offset: number): Message {
    let kept = this.#young.get(segment)?.get(offset);
    if (kept === undefined) {
      kept = this.#old.get(segment)?.get(offset);
      // Read again while old: young again.
      if (kept !== undefined) this.#keep(segment, offset, kept);
    }
    if (kept) return copyJson(kept.message);
    const text = segment.texts[offset] as string;
    const parsed = JSON.parse(text) as Message;
    if (!this.#notes.take(segment, offset)) {
      this.#notes.add(segment, offset);
      return parsed;
    }
    // A message charged more than a whole generation is not kept: it would evict everything else.
    const charge = text.length <= this.limits.size ? chargeOf(text) : text.length;
    if (charge > this.limits.size) return parsed;
    this.#keep(segment, offset, { message: parsed, charge });
    return copyJson(parsed);
  }

  /** Drops every kept message and note of a segment the store frees. */
  forget(segment: TextSource): void {
    const young = this.#young.get(segment);
    const old = this.#old.get(segment);
    if (young) {
      this.#youngEntries -= young.size;
      for (const kept of young.values()) this.#youngSize -= kept.charge;
      this.#young.delete(segment);
    }
    if (old) {
      this.#oldEntries -= old.size;
      this.#old.delete(segment);
    }
    this.#notes.forget(segment);
  }

  /** Drops everything (the store closed). */
  clear(): void {
    this.#young = new Map();
    this.#old = new Map();
    this.#youngEntries = 0;
    this.#oldEntries = 0;
    this.#youngSize = 0;
    this.#notes.clear();
  }

  /** Keeps a message in the young generation, which holds no entry at `offset` of `segment` yet. */
  #keep(segment: TextSource, offset: number, kept: Kept): void {
    if (this.#youngEntries >= this.limits.messages || this.#youngSize + kept.charge > this.limits.size) {
      this.#old = this.#young;
      this.#oldEntries = this.#youngEntries;
      this.#young = new Map();
      this.#youngEntries = 0;
      this.#youngSize = 0;
    }
    let entries = this.#young.get(segment);
    if (entries === undefined) {
      entries = new Map();
      this.#young.set(segment, entries);
    }
    entries.set(offset, kept);
    this.#youngEntries++;
    this.#youngSize += kept.charge;
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

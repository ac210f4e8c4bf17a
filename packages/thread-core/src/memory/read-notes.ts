import type { TextSource } from "./text-source.js";

/** Per segment, the offsets read once. */
type Generation = Map<TextSource, Set<number>>;

/**
 * Offsets of a memory store read once so far, so that a second read keeps the message parsed. Held apart from
 * the parsed messages: a long read of many short segments (each segment's part short enough to go through the
 * cache) only notes offsets, and notes push out older notes, never a parsed message another thread reads every
 * turn. Two generations of at most `limit` offsets each; when the young one fills, it becomes the old one and
 * the old one is dropped.
 */
export class ReadNotes {
  #young: Generation = new Map();
  #old: Generation = new Map();
  #youngCount = 0;
  #oldCount = 0;

  constructor(readonly limit: number) {}

  /** How many offsets are noted (at most twice `limit`). */
  get size(): number {
    return this.#youngCount + this.#oldCount;
  }

  /** Notes a first read of `offset`. */
  add(segment: TextSource, offset: number): void {
    if (this.#youngCount >= this.limit) {
      this.#old = this.#young;
      this.#oldCount = this.#youngCount;
      this.#young = new Map();
      this.#youngCount = 0;
    }
    let offsets = this.#young.get(segment);
    if (offsets === undefined) {
      offsets = new Set();
      this.#young.set(segment, offsets);
    }
    if (!offsets.has(offset)) {
      offsets.add(offset);
      this.#youngCount++;
    }
  }

  /** Whether `offset` was noted; the note is dropped either way (a second read keeps the message or not). */
  take(segment: TextSource, offset: number): boolean {
    if (drop(this.#young, segment, offset)) {
      this.#youngCount--;
      return true;
    }
    if (drop(this.#old, segment, offset)) {
      this.#oldCount--;
      return true;
    }
    return false;
  }

  /** Drops every note of a segment the store frees. */
  forget(segment: TextSource): void {
    this.#youngCount -= this.#young.get(segment)?.size ?? 0;
    this.#oldCount -= this.#old.get(segment)?.size ?? 0;
    this.#young.delete(segment);
    this.#old.delete(segment);
  }

  clear(): void {
    this.#young = new Map();
    this.#old = new Map();
    this.#youngCount = 0;
    this.#oldCount = 0;
  }
}

function drop(generation: Generation, segment: TextSource, offset: number): boolean {
  const offsets = generation.get(segment);
  if (!offsets?.delete(offset)) return false;
  if (offsets.size === 0) generation.delete(segment);
  return true;
}

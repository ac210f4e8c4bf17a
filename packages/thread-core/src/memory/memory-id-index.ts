/**
 * Offsets of a segment's messages by id, for idempotent appends and `locate`, at a cost per lookup that does
 * not grow with the segment. An open-addressing table of (hash, offset) pairs in one Int32Array: 11 to 21
 * bytes per message, where a Map costs about 46 in V8 and keeps every id string alive besides (about 48
 * more for a 26-character id). The table keeps no id: on a hash match, `idAt` reads the id of the stored
 * message, so a collision of hashes never confuses two ids.
 */
export class MessageIdIndex {
  /** Pairs: the id's hash, then its offset plus one (0 marks a free slot). */
  #table = new Int32Array(2 * 16);
  #count = 0;

  constructor(private readonly idAt: (offset: number) => string) {}

  /** The offset of the first message stored under `id`, or undefined. */
  get(id: string): number | undefined {
    const hash = hashId(id);
    const table = this.#table;
    const mask = (table.length >> 1) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const stored = table[2 * slot + 1] as number;
      if (stored === 0) return undefined;
      if (table[2 * slot] === hash && this.idAt(stored - 1) === id) return stored - 1;
    }
  }

  /** Records `offset` under `id`; the caller has checked that the id is not stored yet. */
  add(id: string, offset: number): void {
    // At most three quarters full, so a miss ends after a few probes; doubling keeps the work per add flat.
    if (4 * (this.#count + 1) > 3 * (this.#table.length >> 1)) this.#grow();
    this.#insert(this.#table, hashId(id), offset + 1);
    this.#count++;
  }

  #insert(table: Int32Array, hash: number, stored: number): void {
    const mask = (table.length >> 1) - 1;
    let slot = hash & mask;
    while (table[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
    table[2 * slot] = hash;
    table[2 * slot + 1] = stored;
  }

  #grow(): void {
    const old = this.#table;
    const table = new Int32Array(2 * old.length);
    for (let slot = 0; slot < old.length; slot += 2) {
      if (old[slot + 1] !== 0) this.#insert(table, old[slot] as number, old[slot + 1] as number);
    }
    this.#table = table;
  }
}

/** FNV-1a over the UTF-16 code units, then a final mix so that nearby ids spread over the low bits. */
function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash & 0x7fffffff;
}

import { checksum } from "./checksum.js";

/**
 * One message's entry in a segment's `index.bin`, fixed-width so that entry n sits at n × ENTRY_SIZE:
 *
 * | bytes | field |
 * |---|---|
 * | 0–5 | `end`: where the message's line ends in `messages.jsonl` (it starts where the previous one ends) |
 * | 6 | `flags`: EntryFlag bits |
 * | 7 | format version (1) |
 * | 8–13 | `revision` of the thread after the commit that wrote the message |
 * | 14–19 | `committedAt`: that commit's time, ms since 1970 |
 * | 20–23 | `lineChecksum`: CRC-32 of the line, newline included |
 * | 24–27 | `idHash`: hash of the message id, for the id buckets |
 * | 28–31 | `previous`: 1 + offset of the previous message in the same id bucket, 0 for none |
 * | 32–35 | reserved (0) |
 * | 36–39 | CRC-32 of bytes 0–35, so a torn or half-read entry is never taken for a real one |
 */
export const ENTRY_SIZE = 40;
/** Where `idHash` sits in an entry, for scans that need nothing else. */
export const ID_HASH_FIELD = 24;
const VERSION = 1;

export const EntryFlag = {
  /** The last message of a commit: the commit is visible once this entry is whole. */
  commitEnd: 1,
  system: 2,
  /** The commit also rewrote the thread record; it counts only once the record has its revision. */
  guarded: 4,
} as const;

export interface IndexEntry {
  end: number;
  flags: number;
  revision: number;
  committedAt: number;
  lineChecksum: number;
  idHash: number;
  previous: number;
}

export function encodeEntry(entry: IndexEntry, target: Buffer, position: number): void {
  target.fill(0, position, position + ENTRY_SIZE);
  target.writeUIntLE(entry.end, position, 6);
  target.writeUInt8(entry.flags, position + 6);
  target.writeUInt8(VERSION, position + 7);
  target.writeUIntLE(entry.revision, position + 8, 6);
  target.writeUIntLE(entry.committedAt, position + 14, 6);
  target.writeUInt32LE(entry.lineChecksum, position + 20);
  target.writeUInt32LE(entry.idHash, position + ID_HASH_FIELD);
  target.writeUInt32LE(entry.previous, position + 28);
  target.writeUInt32LE(checksum(target.subarray(position, position + 36)), position + 36);
}

/** The entry at `position`, or undefined when its bytes are not a whole entry (torn, zeroed, foreign). */
export function decodeEntry(source: Buffer, position: number): IndexEntry | undefined {
  if (source.length < position + ENTRY_SIZE) return undefined;
  const stored = source.readUInt32LE(position + 36);
  if (
    source.readUInt8(position + 7) !== VERSION ||
    checksum(source.subarray(position, position + 36)) !== stored
  ) {
    return undefined;
  }
  return {
    end: source.readUIntLE(position, 6),
    flags: source.readUInt8(position + 6),
    revision: source.readUIntLE(position + 8, 6),
    committedAt: source.readUIntLE(position + 14, 6),
    lineChecksum: source.readUInt32LE(position + 20),
    idHash: source.readUInt32LE(position + ID_HASH_FIELD),
    previous: source.readUInt32LE(position + 28),
  };
}

/**
 * The `idHash` of the entry at `position`, or undefined when its bytes are not a whole entry: what
 * `decodeEntry` checks, without building the entry (id lookups and bucket links read only this field).
 */
export function entryIdHash(source: Buffer, position: number): number | undefined {
  if (source.length < position + ENTRY_SIZE) return undefined;
  if (
    source[position + 7] !== VERSION ||
    checksum(source.subarray(position, position + 36)) !== source.readUInt32LE(position + 36)
  ) {
    return undefined;
  }
  return source.readUInt32LE(position + ID_HASH_FIELD);
}

/** The 32-bit hash of a message id that picks its bucket; equal hashes are confirmed against the line. */
export function hashMessageId(id: string): number {
  return checksum(Buffer.from(id, "utf8"));
}

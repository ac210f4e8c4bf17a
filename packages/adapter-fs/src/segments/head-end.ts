import { checksum } from "./checksum.js";

/**
 * A thread's end (`LogRecord.end`, an encrypting store's MAC of where the log ends) as the head segment's end
 * file holds it, with the revision of the commit that wrote it. A record that says its head has an end file
 * (`StoredLogRecord.endFile`) holds no end of its own: the end file's is the thread's, the one place it is
 * kept, so that no older valid end is at hand beside it. An append that changes nothing of the record but its
 * end (every encrypted append) writes it here, in place, instead of rewriting the record file: its commit
 * point (see `commitChange`). A slot with an empty end is void: a record write took the end back into the
 * record (`SegmentLog.voidEnd`).
 */
export interface HeadEnd {
  revision: number;
  /**
   * The revision of the record the append that wrote the slot committed on: a reader whose record has it
   * read the record that was current when the slot was written, so the record, the slot and the tail go
   * together without reading the record again (`FsLogDriver.#live`).
   */
  recordRevision: number;
  /** That record's `rekeyed` (key rotations rewrite a record without changing its revision). */
  recordRekeyed: number;
  end: string;
}

/** The end file's name in a segment's directory. */
export const HEAD_END_FILE = "end.bin";

/**
 * The most an end file's one slot takes: less than a disk sector, written at offset 0 in place, so a power
 * loss leaves the old slot or the new one whole (a sub-sector write lands whole on Linux filesystems); the
 * checksum tells a slot that did not from one that did (`CorruptStoreError`, never an older end read as
 * current). An end too long for it is kept in the record file instead (`fitsHeadEnd`).
 */
export const HEAD_END_SLOT = 512;

const MAGIC = 0x31_45_4b_53; // "SKE1", little-endian
const HEADER = 4 + 8 + 8 + 4 + 2;
const TRAILER = 4;

/** Whether `end` fits the end file's slot. */
export function fitsHeadEnd(end: string): boolean {
  return HEADER + Buffer.byteLength(end, "utf8") + TRAILER <= HEAD_END_SLOT;
}

/**
 * The slot's bytes: magic, revision, the record's revision and `rekeyed`, the end's length and UTF-8 bytes,
 * then a CRC-32 of all that.
 */
export function encodeHeadEnd(headEnd: HeadEnd): Buffer | undefined {
  const text = Buffer.from(headEnd.end, "utf8");
  const size = HEADER + text.length + TRAILER;
  if (size > HEAD_END_SLOT) return undefined;
  const bytes = Buffer.alloc(size);
  bytes.writeUInt32LE(MAGIC, 0);
  bytes.writeDoubleLE(headEnd.revision, 4);
  bytes.writeDoubleLE(headEnd.recordRevision, 12);
  bytes.writeUInt32LE(headEnd.recordRekeyed, 20);
  bytes.writeUInt16LE(text.length, 24);
  text.copy(bytes, HEADER);
  bytes.writeUInt32LE(checksum(bytes.subarray(0, size - TRAILER)), size - TRAILER);
  return bytes;
}

/**
 * The slot read back from `bytes` (the file's first HEAD_END_SLOT bytes); undefined when it is not whole (torn
 * by a write under way, or damaged: `SegmentLog.readEnd` reads it again before it says so).
 */
export function decodeHeadEnd(bytes: Buffer): HeadEnd | undefined {
  const length = bytes.length >= HEADER ? bytes.readUInt16LE(24) : 0;
  const size = HEADER + length + TRAILER;
  if (
    bytes.length < size ||
    bytes.readUInt32LE(0) !== MAGIC ||
    bytes.readUInt32LE(size - TRAILER) !== checksum(bytes.subarray(0, size - TRAILER))
  ) {
    return undefined;
  }
  return {
    revision: bytes.readDoubleLE(4),
    recordRevision: bytes.readDoubleLE(12),
    recordRekeyed: bytes.readUInt32LE(20),
    end: bytes.toString("utf8", HEADER, HEADER + length),
  };
}

/** The revision up to which a head's guarded commits count: the record's, or its end file's when newer. */
export function confirmedRevision(recordRevision: number, headEnd: HeadEnd | undefined): number {
  return Math.max(recordRevision, headEnd?.revision ?? recordRevision);
}

/** The thread's end: its head's end file's when the record says it has one (`endFile`), else the record's. */
export function threadEnd(
  stored: { end?: string; endFile?: true },
  headEnd: HeadEnd | undefined,
): string | undefined {
  return stored.endFile ? headEnd?.end : stored.end;
}

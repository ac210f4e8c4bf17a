import type { Message } from "@skein/thread-core";
import type { MessageRewrite } from "@skein/thread-core/driver";
import { CorruptStoreError } from "../errors.js";
import { readAt } from "../records/file-access.js";
import { checksum } from "../segments/checksum.js";
import { decodeEntry, ENTRY_SIZE, encodeEntry } from "../segments/index-entry.js";
import type { SegmentLog } from "../segments/segment-log.js";
import { removeStrayCopies, settleSwap, swapIn } from "./segment-swap.js";

/**
 * `LogDriver.rewriteMessages` on one segment: the messages whose stored line is still exactly `expected` get
 * `replacement`'s line, in a copy of the segment's log and index swapped in (`segment-swap.ts`). Only the
 * lines and their entries' `end` and checksum change: the same offsets, ids, revisions and commit marks, so
 * the id buckets and system offsets stay as they are, and every fork reading through this segment reads the
 * same messages. Call it holding the lock of every writer of the segment (its owner's thread lock and the
 * references lock); `stillHeld` says whether the thread's lock is still this process's. Costs the
 * segment's size, once per call: the driver says so (`rewritesWholeSegments`), so a rekey makes one call per
 * segment (up to its memory bound) rather than one per batch.
 */
export async function rewriteSegment(
  log: SegmentLog,
  rewrites: readonly MessageRewrite[],
  stillHeld: () => boolean,
): Promise<boolean[]> {
  await settleSwap(log.directory, log.files);
  await removeStrayCopies(log.directory);
  const planned = await log.withFiles(
    async (reader) => {
      // What a stopped writer left past the last commit goes first, as before any write into the segment.
      const tail = await log.repair(undefined, reader);
      if (tail.count === 0) return undefined;
      const indexFile = await reader.handle(log.paths.index);
      const logFile = await reader.handle(log.paths.log);
      if (!indexFile || !logFile)
        throw new CorruptStoreError(log.directory, "a file of the segment is missing");
      const index = await readAt(indexFile, tail.count * ENTRY_SIZE, 0);
      const lines = await readAt(logFile, tail.end, 0);
      return planCopy(log, lines, index, tail.count, rewrites);
    },
    { overdraft: true },
  );
  const nothing = rewrites.map(() => false);
  // An empty segment, or no message still as read: nothing to swap in.
  if (!planned?.done.includes(true)) return planned?.done ?? nothing;
  const swapped = await swapIn(log.directory, log.files, planned.log, planned.index, stillHeld);
  return swapped ? planned.done : nothing;
}

/** The segment's log and index with the rewrites made, and which were made. */
function planCopy(
  log: SegmentLog,
  lines: Buffer,
  index: Buffer,
  count: number,
  rewrites: readonly MessageRewrite[],
): { log: Buffer; index: Buffer; done: boolean[] } {
  const byOffset = new Map<number, number>();
  rewrites.forEach((rewrite, position) => {
    if (!byOffset.has(rewrite.offset)) byOffset.set(rewrite.offset, position);
  });
  const done = rewrites.map(() => false);
  const parts: Buffer[] = [];
  const entries = Buffer.alloc(count * ENTRY_SIZE);
  let start = 0;
  let end = 0;
  for (let offset = 0; offset < count; offset++) {
    const entry = decodeEntry(index, offset * ENTRY_SIZE);
    if (!entry) throw new CorruptStoreError(log.paths.index, `the entry of message ${offset} is not whole`);
    let line = lines.subarray(start, entry.end);
    if (line[line.length - 1] !== 0x0a || checksum(line) !== entry.lineChecksum) {
      throw new CorruptStoreError(log.paths.log, `message ${offset} does not match its checksum`);
    }
    start = entry.end;
    const position = byOffset.get(offset);
    const rewrite = position === undefined ? undefined : rewrites[position];
    if (rewrite && matches(line, rewrite)) {
      line = Buffer.from(`${JSON.stringify(rewrite.replacement)}\n`, "utf8");
      done[position as number] = true;
    }
    end += line.length;
    parts.push(line);
    encodeEntry({ ...entry, end, lineChecksum: checksum(line) }, entries, offset * ENTRY_SIZE);
  }
  return { log: Buffer.concat(parts), index: entries, done };
}

/** The stored line is still the message as read, and the replacement keeps what a reader places it by. */
function matches(line: Buffer, rewrite: MessageRewrite): boolean {
  const { expected, replacement } = rewrite;
  if (replacement.id !== expected.id || replacement.role !== expected.role) return false;
  const stored = JSON.parse(line.toString("utf8")) as Message;
  return JSON.stringify(stored) === JSON.stringify(expected);
}

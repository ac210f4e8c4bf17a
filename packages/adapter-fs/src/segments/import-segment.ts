import { rm } from "node:fs/promises";
import { ConflictError, type Message } from "@skein/thread-core";
import { importConflicts, messageConflict, type SegmentInfo } from "@skein/thread-core/driver";
import { SOURCE } from "../errors.js";
import type { FsStorage } from "../fs-storage.js";
import { DurableFiles } from "../records/durable-files.js";
import { segmentReferrer } from "./segment-directories.js";
import { SegmentLog } from "./segment-log.js";

/**
 * Writes `messages` at own offsets `from…` of a segment that is no thread's head, creating it if absent,
 * by the rules of `LogDriver.importSegment`. Call it holding the references lock, which also keeps two
 * imports of one segment apart. The segment's files are opened once, taking a turn at once (`overdraft`):
 * a commit holding a turn may be waiting for the references lock, so waiting for a turn here could wait
 * forever once commits hold every turn.
 * With `interim` (a streamed reply's batch, `SegmentWriteOptions.interim`) nothing is flushed: neither the
 * segment's making nor the append; they reach the operating system, so they survive the writer being killed.
 */
export async function importSegment(
  storage: FsStorage,
  segment: SegmentInfo,
  messages: Message[],
  from: number,
  options: { interim?: boolean } = {},
): Promise<void> {
  const refuse = importConflicts(segment.id, SOURCE);
  const existing = await storage.segments.info(segment.id, { cached: false });
  // Only a segment made interim is read as its prefix after damage: one made durably stays flushed.
  const interim = options.interim === true && (existing === undefined || existing.interim === true);
  if (!existing) {
    if (from !== 0) throw refuse.missingStart(from);
    await storage.segments.create(segment, { interim });
  }
  const log = storage.log(segment.id, { interim });
  await log.withFiles(
    async (files) => {
      const { count } = await log.tail(files);
      const present = await log.readMessages(from, Math.min(count, from + messages.length), files);
      for (const [index, message] of present.entries()) {
        const expected = messages[index] as Message;
        if (message.id !== expected.id) throw refuse.otherMessage(from + index, expected.id);
        // The same id with other content: an import never keeps the stored text silently.
        const differs = messageConflict(message, expected, SOURCE);
        if (differs) throw differs;
      }
      const rest = messages.slice(present.length);
      if (rest.length === 0) return;
      const gap = refuse.gap(from + present.length);
      if (from + present.length !== count) throw gap;
      if (existing?.owner !== undefined) {
        const owner = await storage.records.read(existing.owner);
        if (owner?.kind === "log" && owner.head === segment.id) {
          throw refuse.liveHead();
        }
      }
      const tail = await log.repair(undefined, files);
      if (tail.count !== count) throw gap;
      await log.append(rest, { revision: 0, committedAt: Date.now(), guarded: false }, tail, files);
    },
    { overdraft: true },
  );
}

/** Segments a batch import makes durable behind one barrier; larger imports take several, so a batch holds the references lock briefly. */
export const IMPORT_BATCH = 256;

/**
 * Imports whole segments (each from offset 0), bases first, by the rules of `importSegment`. Segments already in
 * the store go through `importSegment` one by one. The others are built in tmp/ without a flush each, then one
 * barrier fsyncs all their files and directories, and only then are they renamed into segments/ and segments/
 * synced: as with `create`, no segment directory is ever visible before everything in it is on disk, and a
 * crash leaves at worst staged directories in tmp/ (cleared when a store opens) or extra references. Call it
 * holding the references lock, with at most IMPORT_BATCH segments.
 */
export async function importSegments(
  storage: FsStorage,
  segments: ReadonlyArray<{ info: SegmentInfo; messages: Message[] }>,
): Promise<void> {
  const present = await Promise.all(
    segments.map((segment) => storage.segments.info(segment.info.id, { cached: false })),
  );
  const fresh = segments.filter((_, index) => present[index] === undefined);
  const freshIds = new Set(fresh.map((segment) => segment.info.id));
  if (freshIds.size !== fresh.length) {
    throw new ConflictError("An import lists one segment twice.", undefined, { source: SOURCE });
  }
  // A segment continued by another of this batch is referenced by it from the start.
  const continuedBy = new Map<string, string[]>();
  for (const { info } of fresh) {
    if (!info.base || !freshIds.has(info.base.segment)) continue;
    const children = continuedBy.get(info.base.segment) ?? [];
    children.push(segmentReferrer(info.id));
    continuedBy.set(info.base.segment, children);
  }
  // Each is its own segment's files, so they are checked (and extended) several at a time.
  const known = segments.filter((_, index) => present[index] !== undefined);
  await eachAtOnce(known, (segment) => importSegment(storage, segment.info, segment.messages, 0));
  if (fresh.length === 0) return;
  // Appends to staged segments are flushed by the barrier, not one by one.
  const staged = new DurableFiles("batch", storage.layout.temporary);
  const directories = fresh.map(() => staged.temporaryPath());
  const unsynced: string[] = [];
  try {
    // Bases outside the batch are referenced before anything points at them, as `create` does.
    for (const { info } of fresh) {
      if (info.base && !freshIds.has(info.base.segment)) {
        await storage.segments.retain(info.base.segment, segmentReferrer(info.id));
      }
    }
    // Staged directories are independent of each other: several are built at once.
    await eachAtOnce(fresh, async ({ info, messages }, index) => {
      const directory = directories[index] as string;
      const referrers = continuedBy.get(info.id) ?? [];
      unsynced.push(...(await storage.segments.stage(directory, info, { referrers })));
      if (messages.length === 0) return;
      const stamp = { revision: 0, committedAt: Date.now(), guarded: false };
      await new SegmentLog(directory, staged).append(messages, stamp, { count: 0, end: 0, last: undefined });
    });
    // The barrier: every staged file and directory is on disk before any segment is renamed into place.
    await staged.flush(unsynced);
    await eachAtOnce(fresh, ({ info }, index) =>
      storage.segments.place(directories[index] as string, info.id),
    );
  } catch (error) {
    await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
    throw error;
  } finally {
    await storage.files.syncDirectory(storage.layout.segments);
  }
}

/** Segments staged or placed at a time: enough to keep Node's file thread pool busy. */
const PARALLEL_SEGMENTS = 8;

/** Runs `work` on every item, PARALLEL_SEGMENTS at a time; the first failure is thrown once all have stopped. */
async function eachAtOnce<Item>(
  items: readonly Item[],
  work: (item: Item, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as Item, index);
    }
  };
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(PARALLEL_SEGMENTS, items.length) }, worker),
  );
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

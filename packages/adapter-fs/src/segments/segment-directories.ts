import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConflictError } from "@skein/thread-core";
import { type SegmentInfo, SegmentInfoCache } from "@skein/thread-core/driver";
import { CorruptStoreError, hasCode, SOURCE } from "../errors.js";
import type { DurableFiles } from "../records/durable-files.js";
import { encodeName } from "../records/file-names.js";
import type { StoreLayout } from "../records/store-layout.js";
import { BUCKETS_HEADER_SIZE } from "./id-buckets.js";

/** What `segment.json` holds: the segment's info, and the thread it was made the head of, if any. */
export interface SegmentFile extends SegmentInfo {
  owner?: string;
  /**
   * The segment was made the head by a lock takeover (`head-takeover.ts`): it continues its base as the
   * same head, so a change planned on the base applies to it.
   */
  continues?: boolean;
  /**
   * Made by an interim write (a streamed reply's first batch, `SegmentWriteOptions.interim`) and never
   * flushed: after a power loss its files may be cut short or garbled, so it is read as its whole prefix.
   */
  interim?: boolean;
}

/** A new segment id, in lowercase hex, so that its file names need no escaping. */
export function newSegmentId(): string {
  return `seg_${randomBytes(12).toString("hex")}`;
}

/** The referrer name a thread leaves in the `refs/` of every segment its record or history points at. */
export function threadReferrer(threadId: string): string {
  return `thread.${encodeName(threadId)}`;
}

export function segmentReferrer(segmentId: string): string {
  return `segment.${encodeName(segmentId)}`;
}

/**
 * Segment directories and their references. A segment's `refs/` holds one empty file per thread that points
 * at it (as head, checkpoint, rollback or fork point) and per segment that continues it. Creating a file is
 * idempotent and a crash between steps can only leave an extra reference, never drop one: references are
 * added before anything points at a segment and removed after. A segment whose `refs/` becomes empty is
 * reclaimed, then the segment it continues loses that reference in turn. Callers hold the store's
 * references lock for all of this.
 */
export class SegmentDirectories {
  readonly #infos = new SegmentInfoCache<SegmentFile>((segmentId) => this.#readInfo(segmentId));

  constructor(
    readonly layout: StoreLayout,
    readonly files: DurableFiles,
  ) {}

  /**
   * The segment's `segment.json`, or undefined if there is no such segment. Infos never change, so they are
   * cached; `{ cached: false }` asks the disk, for when it matters that another process reclaimed it.
   */
  info(segmentId: string, options: { cached?: boolean } = {}): Promise<SegmentFile | undefined> {
    return this.#infos.get(segmentId, options);
  }

  /** Read at once: a few hundred bytes the page cache holds, where `readFile` took four round trips. */
  async #readInfo(segmentId: string): Promise<SegmentFile | undefined> {
    const path = join(this.layout.segmentDirectory(segmentId), "segment.json");
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if (hasCode(error, "ENOENT")) return undefined;
      throw error;
    }
    const info = parseSegmentFile(text, path);
    if (info.id !== segmentId)
      throw new CorruptStoreError(path, `it describes segment ${JSON.stringify(info.id)}`);
    return info;
  }

  /**
   * Creates an empty segment, referenced by `referrer` (a thread) when given, in place: its directory and
   * empty files first, `segment.json` last. A directory without `segment.json` is no segment (`info` finds
   * none, and nothing points at it yet), so neither a reader nor a crash ever takes a half-made one for a
   * segment. One barrier then flushes everything: the segment's files and directory, its entry in
   * segments/, the reference to its base, the references `referrer` takes to `alsoRetain`, and the caller's
   * own files of the same change (`alsoSync`: a staged record, appended events), before anything points at
   * it. With `interim` (a streamed reply's segment, which nothing ever points at and which has no base) it
   * is made the same way but not flushed, and marked so.
   */
  async create(
    info: SegmentInfo,
    options: {
      owner?: string;
      referrer?: string;
      continues?: boolean;
      alsoRetain?: Iterable<string>;
      alsoSync?: readonly string[];
      interim?: boolean;
    },
  ): Promise<void> {
    // Only a segment nothing else is flushed with, that continues nothing and that no thread names, may be left unflushed.
    const interim =
      options.interim === true && !info.base && options.referrer === undefined && !options.alsoSync?.length;
    const unsynced = [...(options.alsoSync ?? [])];
    if (info.base) unsynced.push(this.#reference(info.base.segment, segmentReferrer(info.id)));
    if (options.referrer !== undefined) {
      for (const segment of options.alsoRetain ?? []) {
        if (segment !== info.id) unsynced.push(this.#reference(segment, options.referrer));
      }
    }
    const directory = this.layout.segmentDirectory(info.id);
    // Directory entries and a few bytes each, made at once rather than one thread-pool round trip apiece.
    try {
      mkdirSync(directory);
    } catch (error) {
      if (hasCode(error, "EEXIST")) throw segmentExists(info.id);
      throw error;
    }
    try {
      mkdirSync(join(directory, "refs"));
      if (options.referrer !== undefined) writeFileSync(join(directory, "refs", options.referrer), "");
      // Empty id buckets read as a watermark of 0, so this file needs no content to flush.
      for (const name of ["messages.jsonl", "index.bin", "system.bin", "buckets.bin"])
        writeFileSync(join(directory, name), "", { flag: "wx" });
      const file: SegmentFile = {
        id: info.id,
        base: info.base,
        start: info.start,
        createdAt: info.createdAt,
      };
      if (options.owner !== undefined) file.owner = options.owner;
      if (options.continues) file.continues = true;
      if (interim) file.interim = true;
      // Written under another name and renamed: a writer killed between creating the file and writing it
      // would otherwise leave an empty segment.json, a segment that does not read.
      const description = join(directory, "segment.json");
      writeFileSync(`${description}.new`, `${JSON.stringify(file)}\n`, { flag: "wx" });
      renameSync(`${description}.new`, description);
      unsynced.push(
        join(directory, "segment.json"),
        join(directory, "refs"),
        directory,
        this.layout.segments,
      );
      if (!interim) await this.files.syncAll(unsynced);
      // The commit that made it reads it next (a rollback's, a fork's new head): no need to read it back.
      this.#infos.remember(file);
    } catch (error) {
      await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Builds an empty segment's directory at `staging` (in tmp/) with `referrers` in its `refs/`, and gives the
   * files and directories written there, which the caller makes durable before `place` renames it into
   * segments/: `create` one by one, a batch import all of its segments behind one barrier. The reference to
   * the segment's base is the caller's to take first.
   */
  async stage(
    staging: string,
    info: SegmentInfo,
    options: { owner?: string; referrers: readonly string[] },
  ): Promise<string[]> {
    await mkdir(join(staging, "refs"), { recursive: true });
    const file: SegmentFile = { id: info.id, base: info.base, start: info.start, createdAt: info.createdAt };
    if (options.owner !== undefined) file.owner = options.owner;
    await writeFile(join(staging, "segment.json"), `${JSON.stringify(file)}\n`, { flag: "wx" });
    await writeFile(join(staging, "buckets.bin"), Buffer.alloc(BUCKETS_HEADER_SIZE), { flag: "wx" });
    for (const name of ["messages.jsonl", "index.bin", "system.bin"])
      await writeFile(join(staging, name), "");
    for (const referrer of options.referrers) await writeFile(join(staging, "refs", referrer), "");
    return [join(staging, "segment.json"), join(staging, "buckets.bin"), join(staging, "refs"), staging];
  }

  /** Renames a staged, durable segment directory into segments/; the caller syncs segments/ afterwards. */
  async place(staging: string, segmentId: string): Promise<void> {
    try {
      await rename(staging, this.layout.segmentDirectory(segmentId));
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      if (hasCode(error, "ENOTEMPTY", "EEXIST", "EPERM")) throw segmentExists(segmentId);
      throw error;
    }
  }

  /** Adds `referrer` to the segment's references; `ConflictError` if the segment is gone. */
  async retain(segmentId: string, referrer: string): Promise<void> {
    await this.files.syncDirectory(this.#reference(segmentId, referrer));
  }

  /**
   * `retain` without the flush: gives the `refs/` directory to flush before anything points at the segment.
   * An empty file made at once: a directory entry, not worth two thread-pool round trips.
   */
  #reference(segmentId: string, referrer: string): string {
    const references = join(this.layout.segmentDirectory(segmentId), "refs");
    try {
      writeFileSync(join(references, referrer), "");
    } catch (error) {
      if (!hasCode(error, "ENOENT")) throw error;
      throw new ConflictError(
        `Segment ${JSON.stringify(segmentId)} no longer exists: the thread it belonged to was deleted.`,
        undefined,
        { source: SOURCE },
      );
    }
    return references;
  }

  /** Drops `referrer`'s reference; a segment left without any is reclaimed, and so on down its bases. */
  release(segmentId: string, referrer: string): Promise<void> {
    return this.#reclaim({ segment: segmentId, referrer });
  }

  /**
   * Reclaims a segment that nothing references and no thread was made the head of (a streamed reply's
   * batches, once the reply landed), and so on down its bases; a referenced segment, or a head, is kept.
   */
  async drop(segmentId: string): Promise<void> {
    const info = await this.info(segmentId, { cached: false });
    if (!info || info.owner !== undefined) return;
    await this.#reclaim({ segment: segmentId }, { atOnce: true });
  }

  /**
   * @param options.atOnce a reply's segment (a few small files the page cache holds): its `refs/` read and its
   * files removed at once, not in a thread-pool round trip apiece (a recursive `rm` is about twenty).
   */
  async #reclaim(
    start: { segment: string; referrer?: string },
    options: { atOnce?: boolean } = {},
  ): Promise<void> {
    // First down the chain: each segment left without a reference, and its base losing that segment's one.
    const unreferenced: string[] = [];
    let current: { segment: string; referrer?: string } | undefined = start;
    while (current) {
      const directory = this.layout.segmentDirectory(current.segment);
      if (current.referrer !== undefined)
        await rm(join(directory, "refs", current.referrer), { force: true });
      let remaining: string[];
      try {
        const references = join(directory, "refs");
        remaining = options.atOnce ? readdirSync(references) : await readdir(references);
      } catch (error) {
        if (hasCode(error, "ENOENT")) break;
        throw error;
      }
      if (remaining.length > 0) break;
      unreferenced.push(current.segment);
      const info = await this.info(current.segment);
      current = info?.base
        ? { segment: info.base.segment, referrer: segmentReferrer(current.segment) }
        : undefined;
    }
    // Then removed deepest first: a process killed part way leaves the top of the chain, each segment still
    // naming its base, so the next release from the top walks down again and finishes. Top first would leave
    // a base referenced by a segment that no longer exists, which nothing would ever release.
    for (const segment of unreferenced.reverse()) {
      // Out of segments/ in one rename, so no reader ever sees half a segment.
      const trash = join(this.layout.trash, randomBytes(12).toString("hex"));
      if (options.atOnce) renameSync(this.layout.segmentDirectory(segment), trash);
      else await rename(this.layout.segmentDirectory(segment), trash);
      this.#infos.forget(segment);
      await this.files.syncDirectory(this.layout.segments);
      // Whatever is left in trash/ is cleared when a store is first used.
      if (options.atOnce) removeQuietly(trash);
      else await rm(trash, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // Cleared from trash/ when a store is next first used.
  }
}

function segmentExists(segmentId: string): ConflictError {
  return new ConflictError(`Segment ${JSON.stringify(segmentId)} already exists.`, undefined, {
    source: SOURCE,
  });
}

function parseSegmentFile(text: string, path: string): SegmentFile {
  try {
    const parsed = JSON.parse(text) as SegmentFile;
    if (typeof parsed.id === "string" && typeof parsed.start === "number") return parsed;
  } catch {
    // Reported below: segment.json is renamed into place whole (or written before an imported segment's
    // directory is), so this is damage.
  }
  throw new CorruptStoreError(path, "it is not a segment description");
}

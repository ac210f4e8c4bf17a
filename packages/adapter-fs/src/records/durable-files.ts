import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { hasCode } from "../errors.js";

/**
 * `"fsync"`: every change is on disk when its call returns.
 * `"batch"`: appends reach the operating system at once (they survive a crash of the process) but are
 * flushed to disk by its own schedule and by `close()`, so a power loss may lose the newest appends.
 * Everything else (records, new segments, references) is flushed at once either way.
 */
export type Durability = "fsync" | "batch";

/** A file written in the temporary directory, to be renamed over `path` once flushed (`DurableFiles.stage`). */
export interface StagedFile {
  temporary: string;
  path: string;
}

/** Files appended to but not flushed yet ("batch" mode) before a flush happens anyway. */
const MAX_PENDING_FLUSHES = 1024;
/** fsyncs in flight at once in a barrier; Node's thread pool runs four file operations at a time anyway. */
const PARALLEL_SYNCS = 8;

/** Writes files in the order and with the durability the store promises. */
export class DurableFiles {
  readonly #pending = new Set<string>();

  constructor(
    readonly durability: Durability,
    /** Where temporary files go: inside the store, so a rename never crosses file systems. */
    readonly temporaryDirectory: string,
    /**
     * Appends of a streamed reply's batches (`SegmentWriteOptions.interim`): written to the operating system,
     * so they survive the process being killed, and never flushed: the reply's `end` lands the message
     * durably, and a power loss before it costs the reply's tail (`FsLogDriver.readSegment` reads such a
     * segment's whole prefix).
     */
    readonly interim = false,
  ) {}

  /** These files with appends left unflushed (`interim`), for a streamed reply's batches. */
  interimFiles(): DurableFiles {
    return new DurableFiles(this.durability, this.temporaryDirectory, true);
  }

  /**
   * Makes an append to a segment's files durable: at once, or at the next flush in "batch" mode, or never for
   * `interim` files. fdatasync is enough: it flushes the data and the file's size, which is all an append changes.
   */
  async syncAppend(handle: FileHandle, path: string): Promise<void> {
    if (this.interim) return;
    if (this.durability === "fsync") {
      await handle.datasync();
      return;
    }
    this.#pending.add(path);
    if (this.#pending.size > MAX_PENDING_FLUSHES) await this.flush();
  }

  /** Flushes files written by others (whose own flush may never come) to disk, whatever the durability. */
  async syncFiles(paths: string[]): Promise<void> {
    await Promise.all(paths.map(syncPath));
  }

  /** Makes a directory's entries (created, renamed, removed files) durable. */
  async syncDirectory(path: string): Promise<void> {
    await syncPath(path);
  }

  /** Replaces `path` with `data` so that a reader or a crash sees the old file or the new one, never a mix. */
  async writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
    await this.flushAndReplace(this.stage(path, data));
  }

  /** `writeAtomically` of a file already staged (`stage`, or a lock holding's `StagingArea.stage`). */
  async flushAndReplace(staged: StagedFile): Promise<void> {
    try {
      await syncPath(staged.temporary);
    } catch (error) {
      await rm(staged.temporary, { force: true });
      throw error;
    }
    await this.replace(staged);
  }

  /**
   * The first half of `writeAtomically`: `data` in a fresh temporary file, not flushed yet. Flush it with
   * the other files of the same change in one barrier (`syncAll`), then `replace`: a change that writes
   * several files pays one round of fsyncs for all of them instead of one per file. A few bytes to the
   * page cache: written at once, not through the thread pool.
   */
  stage(path: string, data: string | Uint8Array): StagedFile {
    const temporary = this.temporaryPath();
    try {
      writeFileSync(temporary, data, { flag: "wx" });
    } catch (error) {
      rmSyncQuietly(temporary);
      throw error;
    }
    return { temporary, path };
  }

  /** Renames a staged file, flushed since, over its path, and flushes the directory: the change's commit point. */
  async replace(staged: StagedFile): Promise<void> {
    await this.replaceUnflushed(staged);
    await this.syncDirectory(dirname(staged.path));
  }

  /**
   * `replace` without flushing the directory: an interim change (a streamed reply's begin). The file's content
   * was flushed, so a power loss leaves the old file or the new one, whole; the next durable rename in the
   * directory flushes this one too.
   */
  async replaceUnflushed(staged: StagedFile): Promise<void> {
    try {
      await renameReplacing(staged.temporary, staged.path);
    } catch (error) {
      await rm(staged.temporary, { force: true });
      throw error;
    }
  }

  /** A fresh path in the store's temporary directory, or in `directory`. */
  temporaryPath(directory = this.temporaryDirectory): string {
    return join(directory, `${randomBytes(12).toString("hex")}.tmp`);
  }

  /** Flushes every file appended to in "batch" mode since the last flush, and `alsoSync` in the same barrier. */
  async flush(alsoSync: readonly string[] = []): Promise<void> {
    const paths = new Set([...this.#pending, ...alsoSync]);
    this.#pending.clear();
    await this.syncAll([...paths]);
  }

  /**
   * fsyncs files and directories, several at a time: the file system commits concurrent fsyncs together,
   * so a barrier over many files costs a few disk flushes, not one per file.
   */
  async syncAll(all: readonly string[]): Promise<void> {
    const paths = [...new Set(all)];
    let next = 0;
    const worker = async () => {
      while (next < paths.length) await syncPath(paths[next++] as string);
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_SYNCS, paths.length) }, worker));
  }
}

/**
 * fsync of a file or directory by path; a path removed meanwhile has nothing left to flush. Through a
 * `FileHandle` (three thread-pool round trips, the open and the close beside the fsync): opening and
 * closing the descriptor at once saved two of them, but then the fsync no longer went through
 * `FileHandle.sync`, which tests slow down to stand for a loaded disk (faults' slow-first-syncs.mjs).
 */
async function syncPath(path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    // Windows cannot fsync a directory; its renames are durable by other means.
    if (!hasCode(error, "EPERM", "EISDIR", "EINVAL", "EBADF")) throw error;
  } finally {
    await handle.close();
  }
}

function rmSyncQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Its write failed first: that error is the one to report.
  }
}

/** `rename`, retried briefly where Windows refuses to replace a file that a reader holds open. */
async function renameReplacing(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      if (attempt >= 20 || !hasCode(error, "EPERM", "EACCES", "EBUSY")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * (attempt + 1)));
    }
  }
}

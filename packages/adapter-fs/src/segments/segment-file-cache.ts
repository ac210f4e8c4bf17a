import { fstatSync, readFileSync, statSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { openIfExists } from "../records/file-access.js";

/**
 * How many open files a process may have (the soft limit, `ulimit -n`), read once from /proc/self/limits
 * where there is one; else 1024, a common default.
 */
function openFileLimit(): number {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((text) => text.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === "unlimited") return Number.POSITIVE_INFINITY;
    const limit = Number(soft);
    if (Number.isInteger(limit) && limit > 0) return limit;
  } catch {
    // No /proc (macOS, Windows).
  }
  return 1024;
}

const limit = openFileLimit();

/**
 * Open files the caches of all stores in the process keep together, in use or idle: a quarter of the
 * process's limit, between 32 and 1024 (so 64 under a limit of 256, 256 under 1024). Past this, idle files
 * are closed, least recently used first, whichever store they belong to. Idle files are kept only where an
 * open file does not stop its directory from being renamed away (not Windows).
 */
export const MAX_OPEN_FILES = Math.min(1024, Math.max(32, Math.floor(limit / 4)));
const MAX_IDLE_FILES = process.platform === "win32" ? 0 : MAX_OPEN_FILES;
/**
 * Operations of one store that hold a segment's files open at once (up to four files each), an eighth of
 * MAX_OPEN_FILES, between 4 and 64; more wait their turn. Without a cap, 50 threads appended at once held
 * 200 segment files open across their fsyncs, and a process limited to 256 open files failed with EMFILE.
 */
export const MAX_SEGMENT_LEASES = Math.min(64, Math.max(4, Math.floor(MAX_OPEN_FILES / 8)));

export type OpenFlags = "r" | "r+";

/**
 * Every file kept open by any store's cache in this process, least recently used first, with the cache and
 * key it is kept under: the idle budget is the process's, so four stores do not keep four budgets open.
 */
const keptFiles = new Map<CachedFile, { cache: SegmentFileCache; key: string }>();

/** One open file of a segment, shared by the operations that use it at the same time. */
export interface CachedFile {
  readonly path: string;
  readonly handle: FileHandle;
  /** Where the file was when it was opened: a path that now names another file (or none) is opened again. */
  readonly device: number;
  readonly inode: number;
  users: number;
  /** Replaced or gone: closed once its last user lets go, never handed out again. */
  stale: boolean;
}

/**
 * A store's segment files, kept open from one operation to the next (bounded): an append then opens and
 * closes nothing, where it paid eight thread-pool round trips for that before. This is safe because segment
 * files are never replaced: they only grow, or are cut back by a repair, always through the same file. A
 * segment directory is only ever removed whole (renamed to trash/), and a segment id made again (an import)
 * is a new directory, so every checkout compares the path's file (a `stat` at once, about a microsecond)
 * with the one held open, and opens the path again when they differ; the file held open keeps its inode
 * number from going to a new file meanwhile. Thread records are replaced by rename and are never cached here.
 */
export class SegmentFileCache {
  /** Open files by flags and path, least recently used first. */
  readonly #files = new Map<string, CachedFile>();
  /** Turns held, normal and overdraft alike. */
  #leases = 0;
  readonly #waiting: Array<() => void> = [];
  /** After `close`, files are still opened for operations under way, but closed when they let go. */
  #closed = false;

  /**
   * Waits for one of MAX_SEGMENT_LEASES turns to hold a segment's files; call the returned function when
   * done. `overdraft` takes a turn at once: for a segment opened while another lease is held (a commit's
   * new head segment), which would otherwise deadlock when every turn is held by such a commit.
   */
  async lease(overdraft = false): Promise<() => void> {
    if (!overdraft && this.#leases >= MAX_SEGMENT_LEASES) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else this.#leases++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#leases--;
      // Turns pass straight to waiters (counted here), so a new caller cannot take one first; and only
      // while fewer than MAX_SEGMENT_LEASES are held, so a released overdraft never becomes a normal turn.
      while (this.#leases < MAX_SEGMENT_LEASES) {
        const next = this.#waiting.shift();
        if (!next) break;
        this.#leases++;
        next();
      }
    };
  }

  /**
   * The file at `path`, opened with `flags` or kept open since; undefined when there is no such file.
   * @param trusted the caller knows that `path` still names the file it last checked out: its segment was
   * checked out before under a thread lock held since (see `CarriedAppend`), so no stat is made.
   */
  async checkout(path: string, flags: OpenFlags, trusted = false): Promise<CachedFile | undefined> {
    const key = `${flags}:${path}`;
    // A file kept open for writing serves reads too: a segment a commit wrote is not opened again to be read.
    const keptKey = !this.#files.has(key) && flags === "r" ? `r+:${path}` : key;
    const cached = this.#files.get(keptKey);
    if (cached) {
      const now = trusted ? undefined : statSync(path, { throwIfNoEntry: false });
      this.#files.delete(keptKey);
      keptFiles.delete(cached);
      if (trusted || (now && now.ino === cached.inode && now.dev === cached.device)) {
        // most recently used
        this.#files.set(keptKey, cached);
        keptFiles.set(cached, { cache: this, key: keptKey });
        cached.users++;
        return cached;
      }
      this.#drop(cached);
    }
    const handle = await openIfExists(path, flags);
    if (!handle) return undefined;
    const opened = this.#files.get(key);
    if (opened) {
      // Opened meanwhile by another operation: share that one.
      void handle.close().catch(() => undefined);
      opened.users++;
      return opened;
    }
    const status = fstatSync(handle.fd);
    const file: CachedFile = {
      path,
      handle,
      device: status.dev,
      inode: status.ino,
      users: 1,
      stale: this.#closed,
    };
    if (this.#closed) return file;
    this.#files.set(key, file);
    keptFiles.set(file, { cache: this, key });
    SegmentFileCache.#trim();
    return file;
  }

  /** Gives a file back after use: it stays open for the next operation, within MAX_OPEN_FILES. */
  checkin(file: CachedFile): void {
    file.users--;
    if (file.stale) {
      if (file.users === 0) close(file);
      return;
    }
    SegmentFileCache.#trim();
  }

  /** Closes every idle file, and files in use once their users let go. */
  async close(): Promise<void> {
    this.#closed = true;
    const files = [...this.#files.values()];
    this.#files.clear();
    for (const file of files) keptFiles.delete(file);
    await Promise.all(
      files.map((file) => {
        file.stale = true;
        return file.users === 0 ? file.handle.close().catch(() => undefined) : undefined;
      }),
    );
  }

  /**
   * Closes idle files of every store's cache, least recently used first, while the process's caches keep
   * more than MAX_IDLE_FILES open. Files in use stay: their count is bounded by each store's turns.
   */
  static #trim(): void {
    if (keptFiles.size <= MAX_IDLE_FILES) return;
    for (const [file, { cache, key }] of keptFiles) {
      if (keptFiles.size <= MAX_IDLE_FILES) return;
      if (file.users > 0) continue;
      keptFiles.delete(file);
      cache.#files.delete(key);
      file.stale = true;
      close(file);
    }
  }

  #drop(file: CachedFile): void {
    file.stale = true;
    if (file.users === 0) close(file);
  }
}

/**
 * Closed in the background: every read and write through it is done (and flushed where it had to be), so
 * the caller need not wait for a thread-pool round trip behind other fsyncs.
 */
function close(file: CachedFile): void {
  void file.handle.close().catch(() => undefined);
}

import { SkeinError, type SkeinErrorOptions, StoreUnavailableError } from "@skein/thread-core";

/** The package named at the start of every message this adapter raises. */
export const SOURCE = "adapter-fs";

/** Who held a lock file when another writer gave up waiting for it. */
export interface LockHolder {
  pid?: number;
  hostname?: string;
  acquiredAt?: string;
}

/**
 * A thread's lock stayed held past `lockTimeoutMs`. Another process is writing to the thread, or a writer on
 * another machine stopped without releasing it; retrying later may succeed.
 */
export class LockTimeoutError extends StoreUnavailableError {
  static override readonly marker: string = "skein.adapter-fs.LockTimeoutError";
  constructor(
    readonly lockPath: string,
    readonly waitedMs: number,
    readonly holder: LockHolder | undefined,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `Gave up after ${waitedMs} ms waiting for the lock ${lockPath}` +
        (holder?.pid === undefined
          ? "."
          : `, held by process ${holder.pid} on ${holder.hostname ?? "an unknown host"}.`) +
        " A lock is taken over at once when its process is gone, and once older than staleLockMs (its" +
        " process stopped or starved, or on another host); a live process on this host keeps the store's" +
        " references lock.",
      { source: SOURCE, ...options },
    );
  }
}

/**
 * This process's lock on a thread was taken over while it was writing to the thread (an append, a change
 * that rewrites its record, its creation, a state record's save or a delete): the process was stopped
 * (SIGSTOP, a debugger) or starved for longer than `staleLockMs`, and another writer fenced off its writes.
 * Nothing of this operation landed (`operation` says which it was); retrying it makes it anew.
 */
export class LockLostError extends StoreUnavailableError {
  static override readonly marker: string = "skein.adapter-fs.LockLostError";
  constructor(
    readonly lockPath: string,
    options: SkeinErrorOptions = {},
    readonly operation: "append" | "commit" | "create" | "save" | "delete" | "rekey" = "append",
  ) {
    super(
      `Lost the lock ${lockPath} during ${operation === "append" ? "an append" : `a ${operation}`}: this ` +
        "process stopped running for longer than staleLockMs and another writer took the lock over. " +
        `Nothing of this ${operation} landed; retry it.`,
      { source: SOURCE, ...options },
    );
  }
}

/**
 * This process's lock on a thread was taken over while it was appending, and the writer that took it over
 * did not say, within `lockTimeoutMs`, where the thread ends (it stopped in the middle of the takeover), so
 * whether this append landed is unknown until a later writer finishes the takeover. Read the thread (the
 * appended ids are there or not) before retrying; a retry with the same message ids never duplicates them.
 */
export class LockOutcomeUnknownError extends StoreUnavailableError {
  static override readonly marker: string = "skein.adapter-fs.LockOutcomeUnknownError";
  constructor(
    readonly lockPath: string,
    readonly waitedMs: number,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `Lost the lock ${lockPath} during an append, and the writer that took it over has not recorded ` +
        `where the thread ends after ${waitedMs} ms: whether this append landed is unknown. Read the ` +
        "thread before retrying it.",
      { source: SOURCE, ...options },
    );
  }
}

/** A file of the store does not hold what skein wrote there: it was damaged or edited by hand. */
export class CorruptStoreError extends SkeinError {
  static override readonly marker: string = "skein.adapter-fs.CorruptStoreError";
  constructor(
    readonly path: string,
    readonly detail: string,
    options: SkeinErrorOptions = {},
  ) {
    super(`The store file ${path} is damaged: ${detail}`, { source: SOURCE, ...options });
  }
}

/** A thread's history file is gone, or is not the one its record counts, while the record still points at it. */
export function missingEvents(path: string): CorruptStoreError {
  return new CorruptStoreError(path, "it is missing or holds another history than its record counts");
}

/** Runs a file system operation, turning I/O failures (a full disk, a permission) into `StoreUnavailableError`. */
export async function guardInputOutput<T>(operation: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (SkeinError.isInstance(error) || !isSystemError(error)) throw error;
    throw new StoreUnavailableError(`The file system failed during ${operation}: ${error.message}`, {
      source: SOURCE,
      cause: error,
    });
  }
}

/** A Node.js system error (`ENOENT`, `EACCES`, …). */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & Error {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

/** Whether `error` is a system error with one of `codes`. */
export function hasCode(error: unknown, ...codes: string[]): boolean {
  return isSystemError(error) && codes.includes(error.code as string);
}

/** The directory was written by a newer version of this package, in a layout this version cannot read. */
export class UnsupportedStoreFormatError extends SkeinError {
  static override readonly marker: string = "skein.adapter-fs.UnsupportedStoreFormatError";
  constructor(
    readonly directory: string,
    readonly format: unknown,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `The store ${directory} has format ${JSON.stringify(format)}, newer than this version reads; upgrade @skein/adapter-fs.`,
      { source: SOURCE, ...options },
    );
  }
}

/**
 * The store's directory cannot be made or used: a permission (`EACCES`, `EPERM`), a file system that refuses
 * new directories (`/proc`, `/sys`), a file in the way, a read-only or full disk. `code` is the system's
 * (`EACCES`, …) when it gave one; `path` is the directory or parent that failed, `cause` the system error.
 */
export class StoreDirectoryError extends StoreUnavailableError {
  static override readonly marker: string = "skein.adapter-fs.StoreDirectoryError";
  constructor(
    readonly directory: string,
    readonly path: string,
    readonly reason: string,
    readonly code: string | undefined,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `Cannot open the store at ${directory}: ${reason}. Use a directory this process may create and write to.`,
      { source: SOURCE, ...options },
    );
  }
}

/**
 * A store opened with `create: false` (what `skein`'s reading commands and `migrate --from` do) found no
 * store at its directory: the directory is missing, or holds no `skein-fs.json`. Nothing was created.
 */
export class StoreNotFoundError extends SkeinError {
  static override readonly marker: string = "skein.adapter-fs.StoreNotFoundError";
  constructor(
    readonly directory: string,
    readonly detail: string,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `No store at ${directory}: ${detail}. Check the path, or create a store there (skein create, skein import, or open it without create: false).`,
      { source: SOURCE, ...options },
    );
  }
}

import { mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { isSystemError, StoreDirectoryError, StoreNotFoundError } from "../errors.js";

/**
 * More missing levels than any real path has: a bound on the walk up, whatever a file system reports (a
 * loop of ENOENT answers never turns into a loop of system calls).
 */
const MAX_MISSING_LEVELS = 256;

/**
 * Makes `directory` and its missing parents, one level at a time, each `mkdir` tried once. Node 20's
 * `mkdir(…, { recursive: true })` loops forever on file systems that answer ENOENT to a `mkdir` under an
 * existing directory (`/proc`): here that is a `StoreDirectoryError`, as every other failure is.
 */
export async function makeDirectories(directory: string): Promise<void> {
  const target = resolve(directory);
  const missing: string[] = [];
  for (let current = target; !(await isDirectory(current, target)); current = dirname(current)) {
    missing.push(current);
    if (dirname(current) === current || missing.length > MAX_MISSING_LEVELS) {
      throw new StoreDirectoryError(target, current, `${current} cannot be found or made`, undefined);
    }
  }
  for (const level of missing.reverse()) await makeDirectory(level, target);
}

/** Makes one directory whose parent exists; one that is already there (a concurrent opener's) is fine. */
export async function makeDirectory(path: string, store: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    if (isSystemError(error) && error.code === "EEXIST" && (await isDirectory(path, store))) return;
    throw directoryError(store, path, error);
  }
}

/**
 * Checks, creating nothing, that `directory` holds a store (its `marker` file): `StoreNotFoundError` when the
 * directory or the marker is missing, `StoreDirectoryError` when it cannot be read.
 */
export async function requireStore(directory: string, marker: string): Promise<void> {
  const target = resolve(directory);
  if (!(await isDirectory(target, target))) {
    throw new StoreNotFoundError(target, "the directory does not exist");
  }
  try {
    await stat(marker);
  } catch (error) {
    if (isSystemError(error) && error.code === "ENOENT") {
      throw new StoreNotFoundError(target, "the directory holds no skein store (no skein-fs.json)");
    }
    throw directoryError(target, marker, error);
  }
}

/** Whether `path` is a directory (false: it is missing); a file in the way or a refusal is a `StoreDirectoryError`. */
async function isDirectory(path: string, store: string): Promise<boolean> {
  try {
    if ((await stat(path)).isDirectory()) return true;
  } catch (error) {
    if (isSystemError(error) && error.code === "ENOENT") return false;
    throw directoryError(store, path, error);
  }
  throw new StoreDirectoryError(store, path, `${path} is a file, not a directory`, "ENOTDIR");
}

/** The typed error for a system error at `path`, with a reason people can act on. */
function directoryError(store: string, path: string, error: unknown): StoreDirectoryError {
  const code = isSystemError(error) ? error.code : undefined;
  const reasons: Record<string, string> = {
    EACCES: `permission denied for ${path}`,
    EPERM: `the operation is not permitted at ${path}`,
    ENOENT: `the file system refuses to create ${path}`,
    ENOTDIR: `a part of ${path} is a file, not a directory`,
    EROFS: `${path} is on a read-only file system`,
    ENOSPC: `the disk holding ${path} is full`,
    ENAMETOOLONG: `${path} is too long a name`,
    ELOOP: `${path} has too many symbolic links`,
  };
  const reason =
    (code !== undefined ? reasons[code] : undefined) ??
    (error instanceof Error ? error.message : String(error));
  return new StoreDirectoryError(store, path, code ? `${reason} (${code})` : reason, code, { cause: error });
}

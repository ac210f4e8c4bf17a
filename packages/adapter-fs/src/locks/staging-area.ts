import { randomBytes } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { hasCode, LockLostError } from "../errors.js";
import type { StagedFile } from "../records/durable-files.js";

/** Staged files up to this size are written at once; larger ones through the thread pool (`stageLarge`). */
const SYNC_WRITE_LIMIT = 64 * 1024;
/** A staging path's last part: `<lock file name>.<nonce>.staging`. */
const STAGING_NAME = /^(.+\.lock)\.([0-9a-f]{24})\.staging$/;
/** A staged file's last part: `<lock file name>.<nonce>.<number>.tmp` (`StagingArea.stage`). */
const STAGED_FILE_NAME = /^(.+\.lock)\.([0-9a-f]{24})\.[0-9a-f]+\.tmp$/;
/** A revoked staging directory renamed away, before it is removed (`<random>.revoked`). */
const REVOKED_NAME = /^[0-9a-f]{24}\.revoked$/;
/** A revoked directory this old was left by a breaker that died removing it. */
const ABANDONED_REVOKED_MS = 60_000;
/** Rounds of a removal: each one beyond the first needs the revoked holder to add a file meanwhile. */
const MAX_ROUNDS = 100;

/** Who held a lock, as the tombstones of earlier versions name them (swept once their owner is gone). */
export interface StagingOwner {
  pid?: number;
  hostname?: string;
  started?: string;
}

/** What a lock holder was doing when it found its lock lost. */
export type StagedOperation = LockLostError["operation"];

/** The staging path of the lock at `lockPath` while held under `nonce`. */
export function stagingPath(lockPath: string, nonce: string): string {
  return `${lockPath}.${nonce}.staging`;
}

/**
 * Where the holder of a thread's lock stages every rename that changes what readers see, so that a
 * takeover fences off the renames of a holder that stopped (their sources are gone: `LockLostError`,
 * nothing landed).
 *
 * A file replaced (a record, a history written whole) is written in a staged file of the holding's own,
 * `<lock>.<nonce>.<number>.tmp` beside the lock (`stage`), then flushed and renamed over its path. The
 * holder checks that its lock is still its own (`held`) after making each file, and a breaker replaces
 * the lock first and, before the new owner writes anything, unlinks every staged file whose nonce is not
 * the lock's (`sweepStaging`, after every takeover). So a file made after the lock was replaced is never
 * renamed (the check fails), and one made before it is in the directory when the sweep reads it, and is
 * unlinked. The holder's rename and the sweep's unlink both change the locks directory, which the kernel
 * serialises: the rename came first (it landed, and the new owner reads it, under its lock, afterwards),
 * or it finds no source (`ENOENT`). No directory is made or removed per holding for this.
 *
 * A file removed (a record, a history) is renamed into the holding's staging directory (`directory`),
 * made when first needed; only then does the holder check its lock: a breaker replaces the lock first and
 * revokes the directory after (`revokeStaging`), so a `mkdir` that ran before the revoke is undone by it,
 * and one that ran after it sees the lock replaced.
 */
export class StagingArea {
  #created = false;
  #staged = 0;

  constructor(
    readonly lockPath: string,
    readonly nonce: string,
    /** Whether the lock file is still this holding's, read at once. */
    readonly held: () => boolean,
  ) {}

  /** The holding's staging directory, for removals (`directory`). */
  get path(): string {
    return stagingPath(this.lockPath, this.nonce);
  }

  /** Whether this holding made its directory (removed at release). */
  get created(): boolean {
    return this.#created;
  }

  /** Throws `LockLostError` when the lock is no longer this holding's. */
  check(operation: StagedOperation): void {
    if (!this.held()) throw new LockLostError(this.lockPath, {}, operation);
  }

  /**
   * `data` in a new staged file of this holding's, not flushed yet, to flush (`DurableFiles.syncAll`) and
   * rename over `path` (`DurableFiles.replace`) inside `guard`: `LockLostError` when the lock is not this
   * holding's once the file exists. A record is a few bytes to the page cache: written at once, not through
   * the thread pool (`stageLarge` for a file that may be large).
   */
  stage(operation: StagedOperation, path: string, data: string | Uint8Array): StagedFile {
    const temporary = this.#nextName();
    try {
      writeFileSync(temporary, data, { flag: "wx" });
    } catch (error) {
      removeIfPresent(temporary);
      throw error;
    }
    return this.#checked(operation, temporary, path);
  }

  /**
   * `stage` for data of any size (a whole history, which has no bound): over `SYNC_WRITE_LIMIT` bytes it is
   * written through the thread pool, so the event loop (and the lock's refresh timer) is never held up long.
   */
  async stageLarge(operation: StagedOperation, path: string, data: string | Uint8Array): Promise<StagedFile> {
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    if (size <= SYNC_WRITE_LIMIT) return this.stage(operation, path, data);
    const temporary = this.#nextName();
    try {
      await writeFile(temporary, data, { flag: "wx" });
    } catch (error) {
      removeIfPresent(temporary);
      throw error;
    }
    return this.#checked(operation, temporary, path);
  }

  #nextName(): string {
    return `${this.lockPath}.${this.nonce}.${(this.#staged++).toString(16)}.tmp`;
  }

  /** The staged file at `temporary`, once made, if the lock is still this holding's. */
  #checked(operation: StagedOperation, temporary: string, path: string): StagedFile {
    if (!this.held()) {
      // Made after a breaker replaced the lock (and maybe swept it already): never renamed.
      removeIfPresent(temporary);
      throw new LockLostError(this.lockPath, {}, operation);
    }
    return { temporary, path };
  }

  /** The staging directory, made at the first call: `LockLostError` when the lock is not this holding's. */
  directory(operation: StagedOperation): string {
    if (this.#created) return this.path;
    try {
      mkdirSync(this.path);
    } catch (error) {
      // The path is this holding's own (its nonce): only a tombstone an earlier version left can be there.
      if (hasCode(error, "EEXIST")) throw new LockLostError(this.lockPath, {}, operation);
      throw error;
    }
    if (!this.held()) {
      // Made after a breaker revoked this path: never used, and removed again.
      removeTree(this.path);
      throw new LockLostError(this.lockPath, {}, operation);
    }
    this.#created = true;
    return this.path;
  }

  /**
   * Runs `task`, which renames staged files out (`stage`) or files into the staging directory
   * (`directory`): a path that is gone (`ENOENT`: unlinked or renamed away) or no directory (`ENOTDIR`)
   * while the lock is another's means a takeover fenced it off, and nothing of the rename landed.
   */
  async guard<T>(operation: StagedOperation, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (hasCode(error, "ENOENT", "ENOTDIR") && !this.held())
        throw new LockLostError(this.lockPath, { cause: error }, operation);
      throw error;
    }
  }
}

/**
 * Revokes the staging path of a lock holder that may still run (stopped or starved): called by the one
 * taking its lock over, under the lock's `.break` file, AFTER it replaced (or removed) the lock, so that
 * the holder's `held()` is false from then on. The directory, if any, is renamed away (`<random>.revoked`
 * beside it) and removed. The holder's pending renames resolve their paths when they run: one that runs
 * after the rename-away finds no source (`ENOENT`); a `mkdir` of the path after it is followed by the
 * holder's `held()` check, which fails (`StagingArea.directory`). A rename that resolved its path before
 * the rename-away is serialised by the kernel against the removal (both lock the directory), so once the
 * directory is removed, every rename of the holder's either landed (the new owner reads it, under its
 * lock, afterwards) or will fail. The holder's staged files (`StagingArea.stage`) are unlinked by the
 * sweep that follows every takeover (`sweepStaging`), before the new owner writes anything.
 */
export function revokeStaging(path: string): void {
  const target = join(dirname(path), `${randomBytes(12).toString("hex")}.revoked`);
  try {
    renameSync(path, target);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    // A tombstone an earlier version left: it stays until its owner is gone (`sweepStaging`).
    if (hasCode(error, "ENOTDIR")) return;
    throw error;
  }
  removeTree(target);
}

/**
 * Removes a directory and what is in it. A holder whose path lookup ran before the directory was renamed
 * away may still add a file to it: the directory is emptied again until it is gone.
 */
export function removeTree(path: string): void {
  for (let round = 0; ; round++) {
    let names: string[];
    try {
      names = readdirSync(path);
    } catch (error) {
      if (hasCode(error, "ENOENT")) return;
      // A file at a staging path is a tombstone an earlier version left: it stays.
      if (hasCode(error, "ENOTDIR")) return;
      throw error;
    }
    for (const name of names) rmSync(join(path, name), { recursive: true, force: true });
    try {
      rmdirSync(path);
      return;
    } catch (error) {
      if (hasCode(error, "ENOENT")) return;
      if (!hasCode(error, "ENOTEMPTY", "EEXIST") || round >= MAX_ROUNDS) throw error;
    }
  }
}

/**
 * Removes what lock holdings that ended left in `directory` (a locks directory): staged files and staging
 * directories whose lock is held under another nonce or not at all (their holder released it or lost it:
 * removing them is a revoke, see `StagingArea`), revoked directories a breaker died removing, and
 * tombstones (files at a staging path, which earlier versions left at a takeover) whose owner is `gone`.
 * One `readdir` of the directory, and one check per leftover. A staged file is made while its lock is held
 * under its nonce and is gone (renamed or removed) before that holding ends, so one whose lock is not
 * held under its nonce when the lock is read, after the file was listed, is never a live holding's.
 */
export async function sweepStaging(
  directory: string,
  gone: (owner: StagingOwner) => Promise<boolean>,
): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return;
    throw error;
  }
  for (const name of names) {
    const path = join(directory, name);
    try {
      if (REVOKED_NAME.test(name)) {
        if (Date.now() - lstatSync(path).mtimeMs > ABANDONED_REVOKED_MS) removeTree(path);
        continue;
      }
      const staged = STAGED_FILE_NAME.exec(name);
      if (staged) {
        if (readNonce(join(directory, staged[1] as string)) !== staged[2]) removeIfPresent(path);
        continue;
      }
      const staging = STAGING_NAME.exec(name);
      if (!staging) continue;
      const status = lstatSync(path);
      if (status.isDirectory()) {
        if (readNonce(join(directory, staging[1] as string)) !== staging[2]) removeTree(path);
      } else if (await gone(readOwner(path))) {
        rmSync(path, { force: true });
      }
    } catch (error) {
      // Removed meanwhile, by its holder or another sweep.
      if (!hasCode(error, "ENOENT", "ENOTDIR")) throw error;
    }
  }
}

/**
 * The nonce the lock at `lockPath` is held under; undefined when there is no lock or it names none. Any
 * other failure to read it (EMFILE, EIO) is thrown: a live holding's staged files must never be taken for
 * an ended one's.
 */
function readNonce(lockPath: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined;
    throw error;
  }
  try {
    return (JSON.parse(text) as { nonce?: string }).nonce;
  } catch {
    // An earlier version's lock, created before it was written: it stages nothing.
    return undefined;
  }
}

function readOwner(path: string): StagingOwner {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as StagingOwner;
  } catch (error) {
    if (hasCode(error, "ENOENT")) throw error;
    return {};
  }
}

/** unlink, where a file already gone is no error (`rmSync` with `force` pays two more `lstat`s). */
export function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
  }
}

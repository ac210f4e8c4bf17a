import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, linkSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { hasCode, type LockHolder } from "../errors.js";
import type { LockWrites } from "./lease.js";
import { removeIfPresent, revokeStaging, stagingPath } from "./staging-area.js";

export interface LockFileContent extends LockHolder {
  nonce?: string;
  /** Absent in locks written by older versions: such a lock is never taken over from a live owner. */
  writes?: LockWrites;
  /** When the owner process started (Linux), telling the owner from a later process given the same pid. */
  started?: string;
  /**
   * The lock was taken over from an owner that may still run, and its owner must seal and rotate before it
   * writes (`Lease.tookOver`): if it dies, whoever takes the lock next does that in its place.
   */
  fencing?: boolean;
  /**
   * A breaker's `.break` file (`LockBreaker.takeBreaker`), where a releaser's is its own lock file linked
   * there: for people reading the directory; every `.break` is waited for alike.
   */
  breaking?: boolean;
  /** How long since the owner last refreshed the lock file (its modification time). */
  ageMs: number;
}

/** Nonces are a random prefix drawn once per process and a counter: unique without a random draw per lock. */
const NONCE_PREFIX = randomBytes(6).toString("hex");
let nonces = 0;

/**
 * A lock file this process created or took over, while it holds the lock. The file keeps a second name,
 * `<lock>.<nonce>` (the one it was written under, `unlinked`), until the lock is let go: the file then lives,
 * and no other file can be given its inode number, as long as that name names it. So whether the lock path
 * still names this file is two `stat`s compared with it (`isOwn`), where the lock's content was read back and
 * parsed before; no file stays open (a server writing thousands of threads at once holds that many locks).
 * The release links that name to `.break` (`LockBreaker.takeBreakerNow`), and the refresh sets its
 * modification time through it.
 */
export interface OwnLock {
  readonly device: bigint;
  readonly inode: bigint;
  readonly unlinked: string;
  /** When its modification time was last set (created or refreshed). */
  touchedAt: number;
}

/** Removes the lock at `path` if it is still `own`, then `.break`, which the caller holds. */
export function removeHoldingBreaker(path: string, own: OwnLock, breaker: string): void {
  try {
    if (isOwn(path, own)) removeIfPresent(path);
  } finally {
    removeIfPresent(breaker);
  }
}

/** The mark of a lock kept idle by its holder (`LockFiles.#keep`): its lock file's third name while kept. */
export function keptMark(path: string, nonce: string): string {
  return `${path}.${nonce}.kept`;
}

/** A nonce no other lock file or holding of this process has (`NONCE_PREFIX` and a counter). */
export function newNonce(): string {
  return NONCE_PREFIX + (nonces++).toString(16).padStart(12, "0");
}

/**
 * Creates the file at `path` with `content` if it is absent, whole: written to `<path>.<nonce>` first and
 * linked into place (undefined, EEXIST: taken). The first name stays (`OwnLock.unlinked`): the caller
 * removes it.
 */
export function createWhole(path: string, nonce: string, content: string): OwnLock | undefined {
  const unlinked = `${path}.${nonce}`;
  for (let attempt = 0; ; attempt++) {
    const descriptor = openSync(unlinked, "wx");
    let own: OwnLock;
    try {
      writeSync(descriptor, content);
      const status = fstatSync(descriptor, { bigint: true });
      own = { device: status.dev, inode: status.ino, unlinked, touchedAt: Date.now() };
    } catch (error) {
      closeSync(descriptor);
      removeIfPresent(unlinked);
      throw error;
    }
    closeSync(descriptor);
    try {
      linkSync(unlinked, path);
      return own;
    } catch (error) {
      removeIfPresent(unlinked);
      if (hasCode(error, "EEXIST")) return undefined;
      // Swept while this process was stopped between writing and linking it (judged gone, or long
      // stopped on another host): written again, once.
      if (hasCode(error, "ENOENT") && attempt === 0) continue;
      throw error;
    }
  }
}

/**
 * Whether the lock path still names `own`'s file: it names a file with its inode number, and the name
 * `own` was written under still names that file too, so it is alive and its number is no other file's
 * (see `OwnLock`). No one else ever makes a file under that name (its nonce is this holding's).
 */
export function isOwn(path: string, own: OwnLock): boolean {
  const status = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (status === undefined || status.ino !== own.inode || status.dev !== own.device) return false;
  const kept = statSync(own.unlinked, { bigint: true, throwIfNoEntry: false });
  return kept !== undefined && kept.ino === own.inode && kept.dev === own.device;
}

/**
 * The lock at `path` after a takeover renamed it into place, given a second name (`OwnLock.unlinked`) to be
 * held by; null when it is not this `nonce`'s any more (taken over again meanwhile).
 */
export function openOwn(path: string, nonce: string): OwnLock | null {
  const unlinked = `${path}.${nonce}`;
  try {
    linkSync(path, unlinked);
  } catch (error) {
    if (hasCode(error, "ENOENT")) return null;
    throw error;
  }
  // Read through the new name: the file it names now stays put, whatever happens at the lock path.
  try {
    const content = JSON.parse(readFileSync(unlinked, "utf8")) as { nonce?: string };
    if (content.nonce === nonce) {
      const status = statSync(unlinked, { bigint: true });
      return { device: status.dev, inode: status.ino, unlinked, touchedAt: Number(status.mtimeMs) };
    }
  } catch {
    // Unreadable: not this nonce's.
  }
  removeIfPresent(unlinked);
  return null;
}

/**
 * When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined where
 * there is no /proc or no such process. The command name (field 2) may hold spaces and parentheses, so
 * fields are counted after its closing parenthesis.
 */
export async function processStart(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Revokes the staging path of the owner of a lock this process just replaced or removed (`revokeStaging`). */
export function revokeOwner(path: string, holder: LockFileContent): void {
  if (holder.nonce !== undefined) revokeStaging(stagingPath(path, holder.nonce));
}

/** The lock's content, or undefined when there is no lock file. */
export async function readLock(path: string): Promise<LockFileContent | undefined> {
  try {
    const [text, status] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    const ageMs = Date.now() - status.mtimeMs;
    try {
      const parsed = JSON.parse(text) as LockFileContent;
      if (typeof parsed.pid === "number") return { ...parsed, ageMs };
    } catch {
      // Created but not written yet, or its writer died in between: judged by age alone.
    }
    return { ageMs };
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined;
    throw error;
  }
}

/** Whether `<path>.wanted` was touched at or after `since` (another process asked for the lock). */
export function wantedSince(path: string, since: number): boolean {
  // Usually absent: asked without the cost of an exception.
  const wantedAt = statSync(`${path}.wanted`, { throwIfNoEntry: false })?.mtimeMs;
  return wantedAt !== undefined && wantedAt >= since;
}

/** Whether anything is at `path` (a lock a waiter is handed over, `LockFiles.#handOver`). */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return false;
    throw error;
  }
}

/** Resolves after `milliseconds` (a waiter's backoff). */
export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Whether a process with this pid exists on this host (`EPERM`: it exists but is another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return hasCode(error, "EPERM");
  }
}

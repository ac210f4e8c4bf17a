import { randomBytes } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { hasCode, LockLostError } from "./errors.js";

/** A staging path's last part: `<lock file name>.<nonce>.staging`. */
const STAGING_NAME = /^(.+\.lock)\.([0-9a-f]{24})\.staging$/;
/** A revoked staging directory renamed away, before it is removed (`<random>.revoked`). */
const REVOKED_NAME = /^[0-9a-f]{24}\.revoked$/;
/** A revoked directory this old was left by a breaker that died removing it. */
const ABANDONED_REVOKED_MS = 60_000;
/** Rounds of a revoke or a removal: each one beyond the first needs the revoked holder to run meanwhile. */
const MAX_ROUNDS = 100;

/** Who held a lock whose staging path a takeover revoked (kept in the tombstone, to sweep it once they are gone). */
export interface StagingOwner {
  pid?: number;
  hostname?: string;
  started?: string;
}

/** The staging path of the lock at `lockPath` while held under `nonce`. */
export function stagingPath(lockPath: string, nonce: string): string {
  return `${lockPath}.${nonce}.staging`;
}

/**
 * Where the holder of a `"state"` lock stages every replacement of a state record (see `revokeStaging`).
 * The directory is made when first needed: its path then belongs to this lock holding only, and a
 * takeover that revoked it leaves a file there instead, so the holder can never make it again.
 */
export class StagingArea {
  #created = false;

  constructor(
    readonly path: string,
    readonly lockPath: string,
  ) {}

  /** Whether this holding made its directory (removed at release). */
  get created(): boolean {
    return this.#created;
  }

  /** The staging directory, made at the first call. */
  directory(operation: "save" | "delete"): string {
    if (this.#created) return this.path;
    try {
      mkdirSync(this.path);
    } catch (error) {
      // The path is this holding's own (its nonce): only a takeover's tombstone can be there.
      if (hasCode(error, "EEXIST")) throw new LockLostError(this.lockPath, {}, operation);
      throw error;
    }
    this.#created = true;
    return this.path;
  }

  /**
   * Runs `task`, which writes into the staging directory and renames out of it: a path inside it that
   * is gone (`ENOENT`: renamed away) or no directory (`ENOTDIR`: a tombstone) means a takeover revoked it,
   * and since its record rename is the task's only change to the store, nothing of it landed.
   */
  async guard<T>(operation: "save" | "delete", task: (directory: string) => Promise<T>): Promise<T> {
    const directory = this.directory(operation);
    try {
      return await task(directory);
    } catch (error) {
      if (hasCode(error, "ENOENT", "ENOTDIR"))
        throw new LockLostError(this.lockPath, { cause: error }, operation);
      throw error;
    }
  }
}

/**
 * Revokes the staging path of a lock holder that may still run (stopped or starved): called by the one
 * taking its lock over, under the lock's `.break` file, before it replaces the lock. The holder's pending
 * record replacement is a rename out of this path (or, for a delete, into it), its path resolved when the
 * call runs; so:
 * 1. the staging directory, if any, is renamed away (`<random>.revoked` beside it);
 * 2. a file, the tombstone, is created exclusively at the staging path; if the holder made its directory
 *    again in between, that is renamed away as well and the tombstone tried again;
 * 3. every renamed-away directory is emptied and removed.
 * A rename of the holder's that runs after step 1 finds no source (`ENOENT`), or a file where a directory
 * was (`ENOTDIR`), and a `mkdir` after step 2 finds the tombstone (`EEXIST`): nothing it does later
 * replaces the record. A rename that resolved its path before step 1 is serialised by the kernel against
 * step 3 (both lock the directory), so once step 3 removed the directory, every rename of the holder's
 * either landed (the new owner reads it, under its lock, afterwards) or will fail.
 */
export function revokeStaging(path: string, owner: StagingOwner): void {
  const away: string[] = [];
  for (let round = 0; ; round++) {
    const target = join(dirname(path), `${randomBytes(12).toString("hex")}.revoked`);
    try {
      renameSync(path, target);
      away.push(target);
    } catch (error) {
      if (!hasCode(error, "ENOENT")) throw error;
    }
    try {
      writeFileSync(path, JSON.stringify(owner), { flag: "wx" });
      break;
    } catch (error) {
      if (!hasCode(error, "EEXIST") || round >= MAX_ROUNDS) throw error;
    }
  }
  for (const directory of away) removeTree(directory);
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
      // A file here is a tombstone put at a staging path after it was listed: it stays.
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
 * Removes what lock holdings that ended left in `directory` (a locks directory): tombstones whose owner is
 * `gone`, staging directories whose lock is held under another nonce or not at all (their holder released
 * it or lost it, and a revoked one is a tombstone, not a directory), and revoked directories a breaker died
 * removing. One `readdir` of the directory, and one check per leftover.
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

function readNonce(lockPath: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(lockPath, "utf8")) as { nonce?: string }).nonce;
  } catch {
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

import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { hasCode, type LockHolder, LockTimeoutError } from "./errors.js";
import { runInTurn } from "./key-queue.js";

export interface LockSettings {
  /** How long to wait for a lock before `LockTimeoutError`. */
  timeoutMs: number;
  /**
   * A lock its owner has not refreshed for this long is taken over (an owner on another host that is
   * gone): owners refresh their locks while they hold them. A live owner on this host keeps its lock.
   */
  staleMs: number;
}

interface LockFileContent extends LockHolder {
  nonce?: string;
  /** When the owner process started (Linux), telling the owner from a later process given the same pid. */
  started?: string;
  /** How long since the owner last refreshed the lock file (its modification time). */
  ageMs: number;
}

/** A lock file whose content is still unreadable after this long was left by a writer that died creating it. */
const UNWRITTEN_LOCK_MS = 1000;
/** Breaking a stale lock takes a few system calls; a breaker file older than this belongs to a dead breaker. */
const STALE_BREAKER_MS = 2000;
/** Waiters poll this often at most, so a lock handed over is taken within a few milliseconds. */
const MAX_BACKOFF_MS = 4;
/** How long a process that just released a lock others want stays away before taking it again. */
const HAND_OVER_MS = 8;
/** Locks whose last turn is remembered for handing over; older turns are forgotten past this many. */
const REMEMBERED_TURNS = 1024;

/**
 * Mutual exclusion between processes through lock files: `open(path, "wx")` creates the file only if it is
 * absent, atomically on every local file system. The file holds the owner's pid, host, start time and a
 * nonce. Inside one process, callers queue per path first, so only one of them polls the file.
 *
 * Who may take a lock over: a lock whose owner process is gone (same host) is taken over at once. A lock
 * whose owner is alive on this host is never taken over, however long it is held: an owner that is
 * frozen (SIGSTOP, a debugger) or starved may resume in the middle of its writes, which are positioned
 * writes into the thread's files, and nothing could then stop them from landing over the next owner's.
 * Waiters give up after `timeoutMs` instead, with `LockTimeoutError`. A pid now owned by another process
 * (a reused pid) is told apart by its start time. Where the owner cannot be checked (another host, no
 * /proc), a lock its owner has not refreshed for `staleMs` is taken over: owners refresh it every quarter
 * of `staleMs` while they hold it, so only an owner that stopped running loses it.
 *
 * Fairness: a process with many writes queued would otherwise take the lock again the moment it lets go,
 * and waiting processes, which poll, would rarely get in. So waiters touch `<lock>.wanted`, and a process
 * that sees it was touched while it held the lock steps back for a moment before taking the lock again.
 */
export class LockFiles {
  readonly #host = hostname();
  /** This process's start time, written into its locks. */
  readonly #started = processStart(process.pid);
  /** When this process last took each lock, to tell whether others asked for it since. */
  readonly #acquiredAt = new Map<string, number>();

  constructor(readonly settings: LockSettings) {}

  /** Runs `task` holding the lock at `path`. */
  async withLock<T>(path: string, task: () => Promise<T>): Promise<T> {
    return runInTurn(path, async () => {
      const nonce = await this.#acquire(path);
      const refresh = setInterval(
        () => void refreshLock(path, nonce),
        Math.max(10, Math.floor(this.settings.staleMs / 4)),
      );
      refresh.unref();
      try {
        return await task();
      } finally {
        clearInterval(refresh);
        await this.#release(path, nonce);
      }
    });
  }

  async #acquire(path: string): Promise<string> {
    const nonce = randomBytes(12).toString("hex");
    const started = Date.now();
    await this.#handOver(path);
    for (let attempt = 0; ; attempt++) {
      if (await this.#tryCreate(path, nonce)) {
        if (this.#acquiredAt.size >= REMEMBERED_TURNS) this.#acquiredAt.clear();
        this.#acquiredAt.set(path, Date.now());
        if (attempt > 0) await rm(`${path}.wanted`, { force: true });
        return nonce;
      }
      await writeFile(`${path}.wanted`, "");
      const holder = await readLock(path);
      if (
        holder &&
        (await this.#isAbandoned(holder, this.settings.staleMs)) &&
        (await this.#breakLock(path, holder))
      )
        continue;
      const waited = Date.now() - started;
      if (waited >= this.settings.timeoutMs) throw new LockTimeoutError(path, waited, holder);
      await sleep(Math.min(2 ** attempt, MAX_BACKOFF_MS) * (0.5 + Math.random()));
    }
  }

  /** Steps back while another process that asked for the lock during our last turn takes it. */
  async #handOver(path: string): Promise<void> {
    const acquiredAt = this.#acquiredAt.get(path);
    if (acquiredAt === undefined) return;
    this.#acquiredAt.delete(path);
    let wantedAt: number;
    try {
      wantedAt = statSync(`${path}.wanted`).mtimeMs;
    } catch (error) {
      if (hasCode(error, "ENOENT")) return;
      throw error;
    }
    if (wantedAt < acquiredAt) return;
    const until = Date.now() + HAND_OVER_MS;
    while (Date.now() < until && !(await exists(path))) await sleep(1);
  }

  /**
   * Creates the lock file if it is absent. A lock file is a few bytes in a directory the page cache holds, so
   * it is created, written and closed at once, without three thread-pool round trips on every commit.
   */
  async #tryCreate(path: string, nonce: string): Promise<boolean> {
    const started = await this.#started;
    let descriptor: number;
    try {
      descriptor = openSync(path, "wx");
    } catch (error) {
      if (hasCode(error, "EEXIST")) return false;
      throw error;
    }
    try {
      const content = {
        pid: process.pid,
        hostname: this.#host,
        nonce,
        acquiredAt: new Date().toISOString(),
        ...(started === undefined ? {} : { started }),
      };
      writeSync(descriptor, JSON.stringify(content));
    } catch (error) {
      closeSync(descriptor);
      rmSync(path, { force: true });
      throw error;
    }
    closeSync(descriptor);
    return true;
  }

  /** A thread's lock may be taken over only when its owner is gone: see the class comment. */
  async #isAbandoned(holder: LockFileContent, staleMs: number): Promise<boolean> {
    if (holder.pid !== undefined && holder.hostname === this.#host && holder.started !== undefined) {
      if (!isProcessAlive(holder.pid)) return true;
      const started = await processStart(holder.pid);
      if (started !== undefined) return started !== holder.started;
    }
    return this.#isStale(holder, staleMs);
  }

  #isStale(holder: LockFileContent, staleMs: number): boolean {
    if (holder.pid === undefined) return holder.ageMs > Math.min(UNWRITTEN_LOCK_MS, staleMs);
    if (holder.hostname === this.#host && !isProcessAlive(holder.pid)) return true;
    return holder.ageMs > staleMs;
  }

  /**
   * Removes a stale lock. Contenders take a second lock (`.break`) first, and remove the stale lock only if
   * it is still the one they judged stale, so two of them never remove a lock that a third just took.
   * Returns false when another contender is breaking it already.
   */
  async #breakLock(path: string, stale: LockFileContent): Promise<boolean> {
    const breaker = `${path}.break`;
    if (!(await this.#tryCreate(breaker, randomBytes(12).toString("hex")))) {
      const holder = await readLock(breaker);
      if (holder && this.#isStale(holder, STALE_BREAKER_MS)) await rm(breaker, { force: true });
      return false;
    }
    try {
      const current = await readLock(path);
      if (current?.nonce === stale.nonce && current?.pid === stale.pid) await rm(path, { force: true });
      return true;
    } finally {
      await rm(breaker, { force: true });
    }
  }

  async #release(path: string, nonce: string): Promise<void> {
    // A lock taken over as stale belongs to its new owner now. Read and removed at once, like its creation.
    if (readNonceNow(path) === nonce) rmSync(path, { force: true });
  }
}

/** Marks the lock as alive by its modification time, while it is still this owner's. */
async function refreshLock(path: string, nonce: string): Promise<void> {
  try {
    if ((await readLock(path))?.nonce !== nonce) return;
    const now = new Date();
    await utimes(path, now, now);
  } catch {
    // Refreshed again at the next tick; a lock file gone meanwhile needs no refreshing.
  }
}

/**
 * When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined where
 * there is no /proc or no such process. The command name (field 2) may hold spaces and parentheses, so
 * fields are counted after its closing parenthesis.
 */
async function processStart(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** The nonce in the lock file, read at once; undefined when there is none or it is not readable yet. */
function readNonceNow(path: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { nonce?: string }).nonce;
  } catch {
    return undefined;
  }
}

/** The lock's content, or undefined when there is no lock file. */
async function readLock(path: string): Promise<LockFileContent | undefined> {
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

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (hasCode(error, "ENOENT")) return false;
    throw error;
  }
}

function sleep(milliseconds: number): Promise<void> {
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

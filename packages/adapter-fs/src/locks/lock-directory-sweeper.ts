import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { hasCode } from "../errors.js";
import { readLock } from "./lock-file-primitives.js";
import type { LockSettings } from "./lock-settings.js";
import { type StagingOwner, sweepStaging } from "./staging-area.js";

/** Lock directories swept of staging leftovers by this process; forgotten (and swept again) past this many. */
const SWEPT_DIRECTORIES = 64;
/**
 * A lock directory is swept again this many staleMs after its last sweep (5 minutes by default): a server
 * runs for months, and peers that die meanwhile leave their files behind.
 */
const SWEEP_AGAIN_FACTOR = 60;
/**
 * `<lock>.<nonce>`: a lock's content written before it is linked into place (`LockFiles.#tryCreate`), or a
 * breaker's replacement before its rename; `<lock>.<nonce>.kept`, the mark of a lock kept idle (`keptMark`).
 * One left by a process that died in between is swept (`sweepUnlinked`).
 */
const UNLINKED_NAME = /\.lock(\.break)?\.[0-9a-f]{24}(\.kept)?$/;
/** An unlinked lock file whose owner cannot be checked (another host) is swept once this many staleMs old. */
const UNLINKED_STALE_FACTOR = 10;

/** Sweeps lock directories of what dead processes left: staging leftovers and unlinked lock files. */
export class LockDirectorySweeper {
  /** Lock directories this process swept of staging leftovers (`sweepStaging`), once each. */
  readonly #swept = new Map<string, number>();
  /** Lock directories this process swept of unlinked lock files (`sweepUnlinked`), once each. */
  readonly #sweptUnlinked = new Map<string, number>();
  readonly #settings: LockSettings;
  readonly #host: string;
  /** Whether a tombstone's owner is known to be gone (`LockBreaker.isGone`). */
  readonly #isGone: (owner: StagingOwner) => Promise<boolean>;

  constructor(settings: LockSettings, host: string, isGone: (owner: StagingOwner) => Promise<boolean>) {
    this.#settings = settings;
    this.#host = host;
    this.#isGone = isGone;
  }

  /** Whether `directory` is due a sweep (never swept, or not for SWEEP_AGAIN_FACTOR × staleMs); notes it. */
  #sweepDue(swept: Map<string, number>, directory: string): boolean {
    const now = Date.now();
    const last = swept.get(directory);
    if (last !== undefined && now - last < SWEEP_AGAIN_FACTOR * this.#settings.staleMs) return false;
    if (swept.size >= SWEPT_DIRECTORIES) swept.clear();
    swept.set(directory, now);
    return true;
  }

  /** Sweeps a lock directory of staging leftovers (`sweepStaging`), when this process first uses it and again every SWEEP_AGAIN_FACTOR × staleMs. */
  async sweep(directory: string): Promise<void> {
    if (!this.#sweepDue(this.#swept, directory)) return;
    await sweepStaging(directory, (owner) => this.#isGone(owner));
  }

  /**
   * Removes the unlinked lock files (`createWhole`'s `<lock>.<nonce>`, a breaker's replacement) that
   * processes left when they died before linking or renaming them, when this process first uses a lock
   * directory (and again every SWEEP_AGAIN_FACTOR × staleMs): those whose owner is gone
   * (`LockBreaker.isGone`), and those whose owner cannot be checked (another host, no /proc, nothing written
   * yet) once UNLINKED_STALE_FACTOR × staleMs old. An owner that can be checked is never judged by age: a
   * holder keeps this name while it holds its lock (`OwnLock`) and refreshes it by its own staleMs, which may
   * be longer than this process's. Removing one under a creator that still runs is safe: it holds no lock
   * through it, and writes it again or finds the lock busy.
   */
  async sweepUnlinked(directory: string): Promise<void> {
    if (!this.#sweepDue(this.#sweptUnlinked, directory)) return;
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if (hasCode(error, "ENOENT")) return;
      throw error;
    }
    for (const name of names) {
      if (!UNLINKED_NAME.test(name)) continue;
      const path = join(directory, name);
      const holder = await readLock(path);
      if (!holder) continue;
      const owner: StagingOwner = { pid: holder.pid, hostname: holder.hostname, started: holder.started };
      const checkable =
        owner.pid !== undefined && owner.hostname === this.#host && owner.started !== undefined;
      const stale = !checkable && holder.ageMs > UNLINKED_STALE_FACTOR * this.#settings.staleMs;
      if (stale || (await this.#isGone(owner))) await rm(path, { force: true });
    }
  }
}

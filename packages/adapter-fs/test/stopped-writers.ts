// What the lock-takeover tests share: stopping a child writer (SIGSTOP) at random moments until a stop
// lands while it holds a given lock, with a seeded random so that a failing run can be repeated.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** A seeded random number source in [0, 1); the seed (TAKEOVER_SEED to repeat one) is printed under `name`. */
export function seededRandom(name: string): () => number {
  const seed = Number(process.env.TAKEOVER_SEED ?? Date.now() % 100_000);
  console.log(`${name}: TAKEOVER_SEED=${seed}`);
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

export function isStopped(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
}

export function lockNow(path: string): { pid?: number; writes?: string } | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as { pid?: number; writes?: string };
  } catch {
    return undefined;
  }
}

/**
 * Stops `child` at random moments (`gapMs` apart at most, from `minGapMs`) until a stop lands while it
 * holds the lock at `lockPath` declaring `writes` (or one of them, when several are listed; and none of the
 * locks at `free`, nor their `.break`: the references lock, which is never taken over from a live owner);
 * gives up after `attempts` stops.
 */
export async function stopWhileHolding(
  child: ChildProcess,
  lockPath: string,
  writes: string | readonly string[],
  random: () => number,
  pace: { minGapMs: number; gapMs: number; attempts: number },
  free: readonly string[] = [],
): Promise<void> {
  const pid = child.pid as number;
  const declared = new Set(typeof writes === "string" ? [writes] : writes);
  for (let stop = 0; stop < pace.attempts; stop++) {
    await sleep(pace.minGapMs + Math.floor(random() * pace.gapMs));
    child.kill("SIGSTOP");
    await until(() => isStopped(pid), "the writer to stop");
    const lock = lockNow(lockPath);
    // Not while it releases the lock (a few microseconds under `.break`): that blocks takeovers (README).
    // Nor while it holds one of `free` or its `.break` (removing it): both block every writer that needs it.
    const holdsOther = free.some(
      (path) => lockNow(path)?.pid === pid || lockNow(`${path}.break`)?.pid === pid,
    );
    if (
      lock?.pid === pid &&
      declared.has(lock.writes ?? "") &&
      lockNow(`${lockPath}.break`)?.pid !== pid &&
      !holdsOther
    )
      return;
    child.kill("SIGCONT");
  }
  throw new Error(`no stop landed while the writer held a "${[...declared].join('" or "')}" lock`);
}

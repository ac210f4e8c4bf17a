import { runInTurn } from "./key-queue.js";

/**
 * A lock this process kept past the task it was taken for (`LockFiles.withLock`'s `linger`), for the next
 * task on the same path to reuse, until the event loop's check phase of the turn it was kept in.
 * @typeParam H what its owner needs to reuse it.
 */
export interface LingeringLock<H = unknown> {
  /** Who kept it: only its owner reuses it; any other taker of the path releases it first. */
  readonly owner: object;
  readonly holding: H;
  /** Releases it as its owner releases any lock. */
  release(): Promise<void>;
  /** Releases it without waiting on anything (a busy `.break` leaves it to go stale): for an exiting process. */
  releaseNow(): void;
}

/**
 * Kept locks by path, process-wide like the queues of `runInTurn`, so that two stores on one directory
 * release each other's. At most one per path, each for less than one turn of the event loop.
 */
const kept = new Map<string, LingeringLock>();
let exitHook = false;

/**
 * Keeps `lock` at `path` until the check phase of this turn of the event loop (`setImmediate`): a task asked
 * for before then (the next append of a loop or a stream, which follows in the same turn) takes it
 * (`takeLingering`); else it is released then, in turn with the path's other tasks. A pending immediate
 * keeps the process alive until it is released; `process.exit` in between releases it at once. (Another
 * process that asks for it takes it at once, even from a holder stopped meanwhile: `LockFiles.#keep`.)
 */
export function keepLingering<H>(path: string, lock: LingeringLock<H>): void {
  kept.set(path, lock);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", releaseAllNow);
  }
  setImmediate(() => {
    if (kept.get(path) !== lock) return;
    kept.delete(path);
    // A release that fails leaves the lock unrefreshed: it goes stale and is taken over, fenced.
    void runInTurn(path, () => lock.release()).catch(() => undefined);
  });
}

/** The lock kept at `path`, taken out (its owner reuses or releases it); undefined when none is. */
export function takeLingering(path: string): LingeringLock | undefined {
  const lock = kept.get(path);
  if (lock) kept.delete(path);
  return lock;
}

/** Releases every lock `owner` kept (a store closing), each in turn with its path's other tasks. */
export async function releaseLingering(owner: object): Promise<void> {
  const paths = [...kept].filter(([, lock]) => lock.owner === owner).map(([path]) => path);
  await Promise.all(
    paths.map((path) =>
      runInTurn(path, async () => {
        const lock = kept.get(path);
        if (lock?.owner !== owner) return;
        kept.delete(path);
        await lock.release();
      }),
    ),
  );
}

function releaseAllNow(): void {
  for (const [path, lock] of kept) {
    kept.delete(path);
    try {
      lock.releaseNow();
    } catch {
      // Left to go stale: its owner is gone once the process exits, so it is taken over at once.
    }
  }
}

import type { LogDriver } from "../spec/log-driver.js";

/**
 * Wake-ups for followers of a reply, keyed by the reply's segment id (random, so one process-wide table
 * serves every store and scope). A writer in this process wakes its followers at once; a driver's
 * `watch` wakes them for writers in other processes; polling covers the rest. A wake-up is one flag per
 * follower, never a queue: a follower that stops reading holds nothing, and the writer never waits for it.
 */
const listeners = new Map<string, Set<() => void>>();

/** Wakes this process's followers of `segment`. */
export function wakeFollowers(segment: string): void {
  for (const listener of listeners.get(segment) ?? []) listener();
}

/**
 * Wakes every follower of `segment`: this process's at once, other processes' through the driver's
 * `notify` when it has one, sent but not waited for: a wake-up carries nothing, so the writer has no need
 * of its answer (the write it announces is durable already), and one that fails is only a later one:
 * followers poll.
 */
export function announce(driver: LogDriver, segment: string): void {
  wakeFollowers(segment);
  driver.notify?.(segment).catch(() => undefined);
}

/** The longest and shortest waits between two reads when nothing wakes a follower. */
export const MAX_POLL_MS = 1_000;
export const MIN_POLL_MS = 5;

/**
 * A follower's waiting room for one segment: `wait()` resolves at the next wake-up (one since the last
 * wait counts), after `pollMs`, or when `signal` aborts. `close()` lets go of every subscription.
 */
export class FollowerWakeups {
  #pending = false;
  #release: (() => void) | undefined;
  readonly #unwatch: Array<() => void | Promise<void>> = [];

  constructor(
    readonly segment: string,
    driver: LogDriver,
    readonly pollMs: number,
    readonly signal: AbortSignal | undefined,
  ) {
    const listener = () => {
      this.#pending = true;
      this.#release?.();
    };
    let set = listeners.get(segment);
    if (!set) {
      set = new Set();
      listeners.set(segment, set);
    }
    set.add(listener);
    this.#unwatch.push(() => {
      set.delete(listener);
      if (set.size === 0) listeners.delete(segment);
    });
    if (driver.watch) {
      const stop = driver.watch(segment, listener);
      this.#unwatch.push(stop);
    }
    signal?.addEventListener("abort", listener);
    this.#unwatch.push(() => signal?.removeEventListener("abort", listener));
  }

  async wait(): Promise<void> {
    if (this.#pending || this.signal?.aborted) {
      this.#pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#release = done;
    });
    this.#release = undefined;
    this.#pending = false;
  }

  async close(): Promise<void> {
    await Promise.all(this.#unwatch.map((stop) => stop()));
  }
}

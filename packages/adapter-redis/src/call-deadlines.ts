import { performance } from "node:perf_hooks";

interface Pending {
  deadline: number;
  late: () => void;
}

/** The longest wait a Node timer holds (a longer one is cut, with a warning), so a longer deadline is waited in parts. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** What a call that ran out of time fails with, before its owner words it. */
export class CallTimedOut extends Error {}

/**
 * Deadlines of calls that all get the same time, `milliseconds`: a call started later ends later, so the
 * oldest pending call is always the next to run out and one timer, set for it, serves them all. A timer
 * per call (set, then cleared when the reply comes) cost more CPU than the rest of a call's bookkeeping
 * when many threads are appended at once.
 */
export class CallDeadlines {
  /** In the order the calls started, which is the order their deadlines come. */
  readonly #pending = new Set<Pending>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly milliseconds: number) {}

  /**
   * Settles as `work` does, or fails when `work` has not settled within `milliseconds`; either failure is
   * passed through `failure` (a `CallTimedOut` when the time ran out).
   */
  bound<T>(work: Promise<T>, failure: (error: unknown) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        deadline: performance.now() + this.milliseconds,
        late: () => reject(failure(new CallTimedOut())),
      };
      this.#pending.add(pending);
      this.#arm(this.milliseconds);
      work.then(
        (value) => {
          this.#pending.delete(pending);
          resolve(value);
        },
        (error: unknown) => {
          // A call that already ran out of time was answered then; its late failure is not reported again.
          if (this.#pending.delete(pending)) reject(failure(error));
        },
      );
    });
  }

  #arm(milliseconds: number): void {
    if (this.#timer !== undefined) return;
    // Unreferenced: a pending call's socket keeps the process alive; the timer alone must not.
    const wait = Math.min(LONGEST_TIMER_MS, Math.max(1, Math.ceil(milliseconds)));
    this.#timer = setTimeout(() => this.#expire(), wait).unref();
  }

  /** Fails the calls whose time is up, then waits for the oldest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const pending of this.#pending) {
      if (pending.deadline > now) {
        this.#arm(pending.deadline - now);
        return;
      }
      this.#pending.delete(pending);
      pending.late();
    }
  }
}

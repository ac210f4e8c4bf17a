/**
 * At most `limit` holders at once, served first come, first served: a thread that finishes a message and
 * wants another waits behind the threads already waiting, so no thread starves the others.
 */
export class ConcurrencyGate {
  readonly #waiting: Array<() => void> = [];
  #free: number;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("concurrency must be a positive integer");
    this.#free = limit;
  }

  /** How many holders there are now. */
  get active(): number {
    return this.limit - this.#free;
  }

  /** Resolves with a release function once a place is free; call it exactly once. */
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The place passes straight to the next waiter, so a newcomer can never jump the line.
      if (next) next();
      else this.#free++;
    };
  }
}

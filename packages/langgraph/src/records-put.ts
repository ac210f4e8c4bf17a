/** Checkpoints remembered as put by this saver; older ones are looked up in the log instead. */
const REMEMBERED = 1024;
/** How long a `putWrites` waits for its checkpoint's `put` before it appends anyway. */
export const WRITES_WAIT_MS = 10_000;

/**
 * Keeps a checkpoint's writes after its record in the log. LangGraph calls `putWrites` for a checkpoint as
 * soon as its tasks write, but `put` of that checkpoint only once the `put` before it settled, so the writes
 * can reach the saver first; readers find a checkpoint's writes after its record (`CheckpointLog`). So a
 * `putWrites` whose record is neither put by this saver nor in the log waits for this saver's `put` of it,
 * at most WRITES_WAIT_MS (then it appends, as a writer in another process would). Bounded: REMEMBERED keys,
 * and a waiter removed when its record is put or its wait ends.
 */
export class RecordsPut {
  readonly #put = new Set<string>();
  /** Each waiting `putWrites`'s wake-up, by key: removed by its own wait's end, whichever ends first. */
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Says that the record of `key` (`skeinId` and checkpoint id) is in the log, and wakes its writes. */
  put(key: string): void {
    this.#put.add(key);
    if (this.#put.size > REMEMBERED) this.#put.delete(this.#put.values().next().value as string);
    for (const wake of this.#waiting.get(key) ?? []) wake();
  }

  /** Whether this saver put the record of `key` (recently). */
  has(key: string): boolean {
    return this.#put.has(key);
  }

  /** Resolves once the record of `key` is put by this saver, or after WRITES_WAIT_MS. */
  async until(key: string): Promise<void> {
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const waiting = this.#waiting.get(key) ?? new Set();
    waiting.add(wake);
    this.#waiting.set(key, waiting);
    // Put between the caller's look and now: nothing left to wait for.
    if (this.#put.has(key)) wake();
    const timer = setTimeout(wake, WRITES_WAIT_MS);
    try {
      await woken;
    } finally {
      clearTimeout(timer);
      waiting.delete(wake);
      if (waiting.size === 0 && this.#waiting.get(key) === waiting) this.#waiting.delete(key);
    }
  }
}

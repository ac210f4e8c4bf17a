import type { LogRecord } from "../local/log-driver.js";
import { LruCache } from "../manager/lru-cache.js";

/** How many threads' newest records a queue remembers (a record without events is small). */
const THREADS_REMEMBERED = 10_000;

/**
 * Appends to one thread from one process, one at a time, each planned on the record the previous one left.
 * An encrypted append is bound to the offset it lands at, so it commits at the revision it was planned on;
 * appends racing in one process would each be refused by all that landed before them (quadratic retries
 * for n concurrent appends). In turn, each lands at once; only another process's writes make one retry.
 */
export class AppendQueue {
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #newest = new LruCache<string, LogRecord>(THREADS_REMEMBERED);

  /** Runs `work` after every earlier call for `threadId` has settled. */
  run<Result>(threadId: string, work: () => Promise<Result>): Promise<Result> {
    const previous = this.#tails.get(threadId);
    // With nothing before it, the work starts at once (no turn of the queue spent waiting on nothing).
    const result = previous ? previous.then(work, work) : work();
    // Settled, the tail leaves the map unless a later call has taken its place (that call waits on it).
    const settle = (): void => {
      if (this.#tails.get(threadId) === tail) this.#tails.delete(threadId);
    };
    const tail: Promise<void> = result.then(settle, settle);
    this.#tails.set(threadId, tail);
    return result;
  }

  /** Remembers the newest record seen of a thread. */
  saw(record: LogRecord): void {
    const known = this.#newest.get(record.id);
    if (!known || known.revision <= record.revision) this.#newest.set(record.id, record);
  }

  /**
   * Forgets every record it remembers, when an owner's keys are forgotten (crypto-shredded): a record's
   * metadata, context and labels stay sealed under the key of the owner who wrote them, whoever owns the
   * thread now, so no record can be told safe to keep by its owner.
   */
  forget(): void {
    this.#newest.clear();
  }

  /** Of the caller's `known` and the newest record seen, the newer one whose head is `head`. */
  base(threadId: string, head: string, known: LogRecord | undefined): LogRecord | undefined {
    const mine = known?.head === head ? known : undefined;
    const newest = this.#newest.get(threadId);
    if (newest?.head !== head) return mine;
    return mine && mine.revision >= newest.revision ? mine : newest;
  }
}

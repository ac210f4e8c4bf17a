import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Thread } from "@skein/thread-core";
import type { ConcurrencyGate } from "./concurrency-gate.js";
import type { HeldLease, ThreadLeases } from "./thread-lease.js";

/** One unit of work on a thread: a message to process, or a branch to make. */
export interface QueueItem {
  readonly kind: "message" | "branch";
  /** Does the work under the thread's lease; settles the caller's promise itself and never throws. */
  execute(lease: HeldLease, queue: ThreadQueue): Promise<void>;
  /** Settles the caller's promise with `error` when the item is dropped before it ran. */
  fail(error: unknown): void;
}

/** The waiting work of one thread in this service instance, and what it is doing now. */
export class ThreadQueue {
  readonly items: QueueItem[] = [];
  /** Admissions run one after another, so items enter in the order `send` was called. */
  admission: Promise<void> = Promise.resolve();
  admitting = 0;
  draining = false;
  lease: HeldLease | undefined;
  /** The thread object the last message's run under `lease` left, for the next message (see messageItem). */
  keptThread: { lease: HeldLease; thread: Thread } | undefined;
  heldSince = 0;
  backoffMs = 0;
  /** Set by `kill`: an item that read the thread just before the kill landed must not start. */
  killed: unknown = undefined;
  /** The run in progress, so `kill` can abort it. */
  running: { messageId: string; controller: AbortController } | undefined;
  readonly idleWaiters: Array<() => void> = [];

  constructor(readonly threadId: string) {}

  get idle(): boolean {
    return this.items.length === 0 && this.admitting === 0 && !this.draining;
  }
}

export interface ThreadQueuesOptions {
  gate: ConcurrencyGate;
  leases: ThreadLeases;
  /** The first wait before asking again for a lease another instance holds; it doubles up to `maxPollMs`. */
  pollMs: number;
  maxPollMs: number;
}

/**
 * Runs each thread's items one at a time, in order, under the thread's lease, with at most `gate.limit`
 * items running at once across threads. A thread takes its place in the gate again for every item, so a
 * thread with a long queue shares the places fairly; it keeps its lease between items while it has work,
 * for at most `leaseMs` in a row, then lets other instances have a turn.
 */
export class ThreadQueues {
  readonly #queues = new Map<string, ThreadQueue>();
  readonly #idleWaiters: Array<() => void> = [];

  constructor(readonly options: ThreadQueuesOptions) {}

  find(threadId: string): ThreadQueue | undefined {
    return this.#queues.get(threadId);
  }

  /**
   * Admits an item after the previous admissions of the thread: `prepare` checks the thread and builds the
   * item (or throws, and nothing is queued). Resolves once the item is queued.
   */
  admit(threadId: string, prepare: () => Promise<QueueItem>): Promise<void> {
    let queue = this.#queues.get(threadId);
    if (!queue) {
      queue = new ThreadQueue(threadId);
      this.#queues.set(threadId, queue);
    }
    const target = queue;
    target.admitting++;
    const step = target.admission.then(async () => {
      try {
        target.items.push(await prepare());
        this.#schedule(target);
      } finally {
        target.admitting--;
        this.#forgetIfIdle(target);
      }
    });
    target.admission = step.catch(() => {});
    return step;
  }

  /** Drops the waiting items that `select` picks, failing each with `makeError()`. */
  reject(
    threadId: string,
    makeError: () => unknown,
    select: (item: QueueItem) => boolean = () => true,
  ): void {
    const queue = this.#queues.get(threadId);
    if (!queue) return;
    const dropped = queue.items.filter(select);
    queue.items.splice(0, queue.items.length, ...queue.items.filter((item) => !select(item)));
    for (const item of dropped) item.fail(makeError());
  }

  /** Drops every waiting item of every thread. */
  rejectAll(makeError: () => unknown): void {
    for (const threadId of [...this.#queues.keys()]) this.reject(threadId, makeError);
  }

  /** Aborts every run in flight with `makeError()` as the reason. */
  abortRunning(makeError: () => unknown): void {
    for (const queue of this.#queues.values()) queue.running?.controller.abort(makeError());
  }

  /** Resolves when the thread (or every thread) has nothing queued or running in this instance. */
  whenIdle(threadId?: string): Promise<void> {
    if (threadId !== undefined) {
      const queue = this.#queues.get(threadId);
      if (!queue) return Promise.resolve();
      return new Promise((resolve) => queue.idleWaiters.push(resolve));
    }
    if (this.#queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #schedule(queue: ThreadQueue): void {
    if (queue.draining || queue.items.length === 0) return;
    queue.draining = true;
    void this.#drain(queue);
  }

  async #drain(queue: ThreadQueue): Promise<void> {
    try {
      while (queue.items.length > 0) {
        const release = await this.options.gate.acquire();
        let next: "continue" | "wait";
        try {
          next = await this.#turn(queue);
        } finally {
          release();
        }
        if (next === "wait" && queue.items.length > 0) await sleep(this.#nextBackoff(queue));
      }
    } finally {
      await this.#letGo(queue);
      queue.draining = false;
      if (queue.items.length > 0) this.#schedule(queue);
      else this.#forgetIfIdle(queue);
    }
  }

  /** One item under the lease, or "wait" when another instance holds the thread. */
  async #turn(queue: ThreadQueue): Promise<"continue" | "wait"> {
    if (queue.lease && !queue.lease.valid()) await this.#letGo(queue);
    if (!queue.lease) {
      try {
        queue.lease = await this.options.leases.tryAcquire(queue.threadId);
      } catch (error) {
        // The store cannot be reached: the item at the head fails with its error rather than wait forever.
        queue.items.shift()?.fail(error);
        return "continue";
      }
      if (!queue.lease) return "wait";
      queue.heldSince = performance.now();
      queue.backoffMs = 0;
    }
    const item = queue.items.shift();
    if (item) await item.execute(queue.lease, queue);
    const heldTooLong = performance.now() - queue.heldSince >= this.options.leases.leaseMs;
    if (queue.items.length === 0 || heldTooLong) {
      await this.#letGo(queue);
      if (queue.items.length > 0) return "wait";
    }
    return "continue";
  }

  async #letGo(queue: ThreadQueue): Promise<void> {
    const lease = queue.lease;
    queue.lease = undefined;
    queue.keptThread = undefined;
    await lease?.release();
  }

  #nextBackoff(queue: ThreadQueue): number {
    const { pollMs, maxPollMs } = this.options;
    queue.backoffMs = Math.min(maxPollMs, queue.backoffMs === 0 ? pollMs : queue.backoffMs * 2);
    // Jitter keeps instances that wait on the same thread from asking in lockstep.
    return Math.round(queue.backoffMs * (0.5 + Math.random()));
  }

  #forgetIfIdle(queue: ThreadQueue): void {
    if (!queue.idle || this.#queues.get(queue.threadId) !== queue) return;
    this.#queues.delete(queue.threadId);
    // Nothing waits for the thread here any more: its lease need not be timed (the map stays bounded).
    this.options.leases.forget(queue.threadId);
    for (const resolve of queue.idleWaiters.splice(0)) resolve();
    if (this.#queues.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}

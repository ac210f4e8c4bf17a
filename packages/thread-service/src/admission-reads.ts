import type { Thread, ThreadStore } from "@skein/thread-core";

interface SharedRead {
  /** When the read was sent, on the clock of `AdmissionReads`. */
  sentAt: number;
  thread: Promise<Thread>;
}

/**
 * The reads that admit a thread's messages and branches, shared: an admission may use a read sent after
 * its own call, because what that read sees is at least as new as a read of its own, made when it was
 * called, would have seen. Sends that arrive together for one thread then cost one read, not one each.
 * The item is checked again under the lease before it runs, so admission only turns away what is already
 * known to be refused (an unknown, paused or killed thread).
 *
 * Only the newest read of each thread with admissions in progress is kept, and it is dropped when the last
 * of them ends, so the map stays as small as the set of threads being admitted now.
 */
export class AdmissionReads {
  readonly #latest = new Map<string, SharedRead>();
  readonly #pending = new Map<string, number>();
  #clock = 0;

  constructor(readonly store: ThreadStore) {}

  /** Marks a call: its admission may use any read sent after this moment. */
  now(): number {
    return ++this.#clock;
  }

  /** Counts an admission in progress for the thread, until its `end()`. */
  begin(threadId: string): void {
    this.#pending.set(threadId, (this.#pending.get(threadId) ?? 0) + 1);
  }

  end(threadId: string): void {
    const left = (this.#pending.get(threadId) ?? 1) - 1;
    if (left > 0) this.#pending.set(threadId, left);
    else {
      this.#pending.delete(threadId);
      this.#latest.delete(threadId);
    }
  }

  /** The thread as read after `calledAt`: the newest shared read if it was sent later, else a new one. */
  read(threadId: string, calledAt: number): Promise<Thread> {
    const latest = this.#latest.get(threadId);
    if (latest && latest.sentAt > calledAt) return latest.thread;
    const read: SharedRead = { sentAt: this.now(), thread: this.store.get(threadId) };
    // A failed read fails every admission sharing it, as their own reads would have; none is left unhandled.
    read.thread.catch(() => {});
    if (this.#pending.has(threadId)) this.#latest.set(threadId, read);
    return read.thread;
  }
}

import { type Thread, ThreadExistsError, ThreadNotFoundError, type ThreadStore } from "@skein/thread-core";
import { skeinThreadId, threadPrefix } from "./skein-thread-ids.js";

/** Skein thread handles kept open at once; older ones are simply read again when needed. */
const OPEN_THREADS = 256;

/** A LangGraph thread and checkpoint namespace, and the skein thread that holds them. */
export interface Target {
  threadId: string;
  namespace: string;
  skeinId: string;
}

/** The skein threads a saver keeps its checkpoints in: found, created and listed by LangGraph ids. */
export class LangGraphThreads {
  readonly #threads = new Map<string, Thread>();

  constructor(
    readonly store: ThreadStore,
    readonly prefix: string,
  ) {}

  target(threadId: string, namespace: string): Target {
    return { threadId, namespace, skeinId: skeinThreadId(this.prefix, threadId, namespace) };
  }

  /**
   * The (thread, namespace) pairs a listing covers: one thread's, or every thread's in the store. A thread and
   * namespace both given name one skein thread, whose id says which (it may not exist); otherwise the store
   * lists the prefix, each item with its metadata, which says whose checkpoints the thread holds.
   */
  async *targets(threadId: string | undefined, namespace: string | undefined): AsyncGenerator<Target> {
    if (threadId !== undefined && namespace !== undefined) {
      yield this.target(threadId, namespace);
      return;
    }
    const prefix = threadId === undefined ? this.prefix : threadPrefix(this.prefix, threadId);
    let cursor: string | undefined;
    do {
      const page = await this.store.list({ prefix, ...(cursor ? { cursor } : {}) });
      for (const item of page.items) {
        const origin = item.metadata?.langgraph as { threadId?: unknown; namespace?: unknown } | undefined;
        if (typeof origin?.threadId !== "string" || typeof origin.namespace !== "string") continue;
        if (namespace !== undefined && origin.namespace !== namespace) continue;
        if (threadId !== undefined && origin.threadId !== threadId) continue;
        yield { threadId: origin.threadId, namespace: origin.namespace, skeinId: item.id };
      }
      cursor = page.cursor;
    } while (cursor);
  }

  #keep(id: string, thread: Thread): Thread {
    this.#threads.delete(id);
    this.#threads.set(id, thread);
    if (this.#threads.size > OPEN_THREADS) this.#threads.delete(this.#threads.keys().next().value as string);
    return thread;
  }

  /** The skein thread if it exists; reading never creates one. */
  async existing(id: string): Promise<Thread | undefined> {
    const known = this.#threads.get(id);
    if (known) return known;
    try {
      return this.#keep(id, await this.store.get(id));
    } catch (error) {
      if (ThreadNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  /** The skein thread, created on the first write; two processes creating it at once end with one. */
  async opened(target: Target): Promise<Thread> {
    const existing = await this.existing(target.skeinId);
    if (existing) return existing;
    try {
      const created = await this.store.create({
        id: target.skeinId,
        metadata: { langgraph: { threadId: target.threadId, namespace: target.namespace } },
      });
      return this.#keep(target.skeinId, created);
    } catch (error) {
      if (!ThreadExistsError.isInstance(error)) throw error;
      return this.#keep(target.skeinId, await this.store.get(target.skeinId));
    }
  }

  /** Drops a handle, after its thread was deleted. */
  forget(id: string): void {
    this.#threads.delete(id);
  }

  clear(): void {
    this.#threads.clear();
  }
}

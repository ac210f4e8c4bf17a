import {
  ConcurrencyError,
  ConflictError,
  type Thread,
  ThreadExistsError,
  ThreadNotFoundError,
  type ThreadState,
} from "@skein/thread-core";
import { type BindEnvironment, canonicalJson } from "@skein/thread-core/driver";
import { SOURCE } from "./errors.js";

/**
 * A remote thread's state as a document in the store that opened it. With `revisions`, every write is a
 * compare-and-swap: it lands only if the stored document is still the one this object last read, so two
 * processes moving the same response chain cannot silently overwrite each other.
 */
export class StateDocument {
  /** The store's revision of the document as last written here; unknown after a bind. */
  #storedRevision: number | undefined;

  constructor(
    readonly environment: BindEnvironment,
    readonly revisions: boolean,
  ) {}

  /** Writes `thread`'s current state; `previous` is the state it replaces (what this object last read). */
  async save(thread: Thread, previous: ThreadState): Promise<void> {
    const store = this.environment.store;
    if (!store) return;
    if (!this.revisions) {
      await store.save(thread);
      return;
    }
    const expected = this.#storedRevision ?? (previous.revision as number);
    try {
      this.#storedRevision = (await store.save(thread, { ifRevision: expected })).revision;
    } catch (error) {
      if (!ConcurrencyError.isInstance(error)) throw error;
      // The store's revision need not be the state's (the state came as JSON, or was saved by hand):
      // what matters is whether its content is still what this object read.
      const stored = await this.read(thread.id);
      const unchanged = stored === undefined ? error.actualRevision === 0 : sameState(stored, previous);
      if (!unchanged) {
        throw new ConcurrencyError(
          thread.id,
          previous.revision as number,
          typeof stored?.revision === "number" ? stored.revision : error.actualRevision,
          { source: SOURCE, cause: error },
        );
      }
      this.#storedRevision = (await store.save(thread, { ifRevision: error.actualRevision })).revision;
    }
  }

  /** The stored state, validated and migrated, or undefined when the store does not hold the thread. */
  async read(id: string): Promise<ThreadState | undefined> {
    const store = this.environment.store;
    if (!store) return undefined;
    try {
      return this.environment.registry.parse(await store.export(id)) as ThreadState;
    } catch (error) {
      if (ThreadNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  /** Forgets the stored revision, after the state was replaced by a fresh read. */
  reset(): void {
    this.#storedRevision = undefined;
  }

  async delete(id: string): Promise<void> {
    await this.environment.store?.delete(id);
  }
}

function sameState(a: ThreadState, b: ThreadState): boolean {
  const { revision: _a, ...restA } = a;
  const { revision: _b, ...restB } = b;
  return canonicalJson(restA) === canonicalJson(restB);
}

/** Saves a new thread's state; `ThreadExistsError` when the store already holds a thread with its id. */
export async function saveNewState(environment: BindEnvironment, thread: Thread): Promise<void> {
  try {
    await environment.store?.save(thread, { ifRevision: 0 });
  } catch (error) {
    if (ConcurrencyError.isInstance(error) || ConflictError.isInstance(error)) {
      throw new ThreadExistsError(thread.id, { source: SOURCE, cause: error });
    }
    throw error;
  }
}

import { DelegatingThread } from "../delegating-thread.js";
import { ConcurrencyError, quoteUntrusted, UnsupportedOperationError } from "../errors.js";
import { LogThread } from "../local/log-thread.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import type { Message, MessageInput } from "../message.js";
import type { ThreadTypeRegistry } from "../spec/thread-store.js";
import type {
  AppendOptions,
  Checkpoint,
  PointTarget,
  RollbackOptions,
  ThreadUpdate,
  UpdateOptions,
} from "../thread.js";
import type { ThreadState } from "../thread-type.js";
import { type PairKey, pairMetadata } from "./pair-key.js";
import { ThreadManagerError } from "./thread-manager-error.js";

/** The load/save callbacks as the manager calls them: failures typed, a refused save reported as `false`. */
export interface PairStorage {
  load(key: PairKey): Promise<unknown>;
  save(
    key: PairKey,
    state: ThreadState & { revision: number },
    options: { expectedRevision: number },
  ): Promise<boolean>;
}

/** How often a save reloads the newer stored state and re-appends before it gives up with `ConcurrencyError`. */
const SAVE_ATTEMPTS = 20;
/**
 * A save that lost the race steps back before it tries again, for 1, 2, 4… up to this many milliseconds (each
 * drawn between half and one and a half of it): two processes saving one pair as fast as they can otherwise
 * collide in step, and on a busy machine one of them lost 20 times in a row. At most about a second in all.
 */
const MAX_SAVE_BACKOFF_MS = 32;

/** What the storage held when this object last loaded or saved: the revision a save expects to replace. */
interface Base {
  revision: number;
  head: string;
  length: number;
  events: number;
  metadata: string;
  context: string;
}

/**
 * A pair thread kept by `load`/`save` callbacks: a memory thread, plus the revision the storage held when it
 * was loaded or last saved. `save` replaces that revision only (a compare-and-set by the callback); when
 * another writer saved first, it reloads the newer state and re-appends this object's unsaved messages
 * (idempotent by id) on top, so no saved message is ever overwritten. Changes other than appends (rollback,
 * checkpoint, update) cannot be merged that way: their save is a `ConcurrencyError`. A fork is a memory
 * thread of its own, not kept by the callbacks.
 */
export class CallbackThread extends DelegatingThread<LogThread> {
  #base: Base;
  /** Changes and saves run one at a time, so a save never misses an append made while it merges. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly key: PairKey,
    readonly storage: PairStorage,
    readonly registry: ThreadTypeRegistry,
    inner: LogThread,
  ) {
    super(inner);
    this.#base = snapshot(inner);
  }

  /** The pair's saved thread, or a new empty one (saved on its first `save`). */
  static async load(
    key: PairKey,
    storage: PairStorage,
    registry: ThreadTypeRegistry,
  ): Promise<CallbackThread> {
    const saved = await storage.load(key);
    const inner =
      saved === undefined || saved === null
        ? ((await createMemoryStore({ registry }).create({
            id: key.threadId,
            metadata: pairMetadata(key),
          })) as LogThread)
        : await openSaved(key, saved, registry);
    return new CallbackThread(key, storage, registry, inner);
  }

  override append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    return this.#exclusive(() => this.delegate.append(input, options));
  }

  /** Appends and saves in one step; see `ThreadManager.appendAndSave`. */
  appendAndSave(input: MessageInput | MessageInput[]): Promise<Message[]> {
    return this.#exclusive(async () => {
      const appended = await this.delegate.append(input);
      await this.#save();
      return appended;
    });
  }

  /** Writes what changed since the last load or save; see `ThreadManager.save`. */
  save(): Promise<void> {
    return this.#exclusive(() => this.#save());
  }

  override checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint> {
    return this.#exclusive(() => this.delegate.checkpoint(label, options));
  }

  override rollback(target: PointTarget, options?: RollbackOptions): Promise<Message[]> {
    return this.#exclusive(() => this.delegate.rollback(target, options));
  }

  override update(patch: ThreadUpdate, options?: AppendOptions): Promise<void> {
    return this.#exclusive(() => this.delegate.update(patch, options));
  }

  /**
   * Loads the saved state; when another writer saved a newer one, this object becomes it, with its own
   * unsaved messages appended on top (a `ConcurrencyError` if it has unsaved changes other than appends).
   */
  override refresh(): Promise<void> {
    return this.#exclusive(async () => {
      const saved = await this.storage.load(this.key);
      if (saved === undefined || saved === null || savedRevision(saved) === this.#base.revision) return;
      await this.#rebase(saved);
    });
  }

  override async delete(): Promise<void> {
    throw new UnsupportedOperationError(
      "thread manager",
      "delete",
      "its pair threads live where the save callback keeps them; delete the saved state there.",
    );
  }

  async #save(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const state = this.delegate.toJSON() as ThreadState & { revision: number };
      if (state.revision === this.#base.revision) return; // nothing new since the last load or save
      const expectedRevision = this.#base.revision;
      if (await this.storage.save(this.key, state, { expectedRevision })) {
        this.#base = snapshot(this.delegate);
        return;
      }
      // Stepped back first, so that the state loaded next is as fresh as it can be when the save tries again.
      await stepBack(attempt);
      const stored = await this.storage.load(this.key);
      const revision = stored === undefined || stored === null ? 0 : (savedRevision(stored) ?? 0);
      if (revision === expectedRevision) {
        throw new ThreadManagerError(
          `The thread manager's save callback refused revision ${expectedRevision} of ${JSON.stringify(this.id)}, yet load returns that revision: save must store the state when the stored revision equals expectedRevision (nothing stored counts as 0).`,
        );
      }
      // Deleted meanwhile, or still losing the race after many merges: say so rather than loop.
      if (stored === undefined || stored === null || attempt >= SAVE_ATTEMPTS) {
        throw new ConcurrencyError(this.id, expectedRevision, revision);
      }
      await this.#rebase(stored);
    }
  }

  /** Becomes the newer saved state, re-appending the messages this object has not saved yet. */
  async #rebase(saved: unknown): Promise<void> {
    const record = this.delegate.record;
    const base = this.#base;
    const revision = savedRevision(saved) ?? 0;
    if (revision < base.revision) {
      // Re-appending onto an older state would drop what this object saved since: refuse instead.
      throw new ThreadManagerError(
        `The thread manager's load callback returned revision ${revision} of ${JSON.stringify(this.id)}, older than revision ${base.revision} saved before: stored revisions must only grow (was the storage restored?).`,
      );
    }
    const appendsOnly =
      record.head === base.head &&
      record.events.length === base.events &&
      record.length >= base.length &&
      JSON.stringify(record.metadata) === base.metadata &&
      JSON.stringify(record.context) === base.context;
    const changed = record.revision !== base.revision;
    if (changed && !appendsOnly) {
      throw new ConcurrencyError(this.id, base.revision, revision, {
        cause: new Error(
          "this object's unsaved changes (a rollback, checkpoint or update) cannot be merged onto the newer saved state; get the pair again and redo them",
        ),
      });
    }
    const unsaved = record.length - base.length;
    const pending = unsaved > 0 ? await this.delegate.messages({ last: unsaved }) : [];
    const next = await openSaved(this.key, saved, this.registry);
    const nextBase = snapshot(next);
    if (pending.length > 0) await next.append(pending);
    this.delegate = next;
    this.#base = nextBase;
  }

  #exclusive<T>(action: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(action);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** Waits before the save's next attempt, longer after each lost race (`MAX_SAVE_BACKOFF_MS`). */
function stepBack(attempt: number): Promise<void> {
  // Whole milliseconds, at least 1: what Node waits anyway, and what fake clocks in tests count (they drop fractions).
  const milliseconds = Math.ceil(Math.min(2 ** (attempt - 1), MAX_SAVE_BACKOFF_MS) * (0.5 + Math.random()));
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

function snapshot(thread: LogThread): Base {
  const record = thread.record;
  return {
    revision: record.revision,
    head: record.head,
    length: record.length,
    events: record.events.length,
    metadata: JSON.stringify(record.metadata),
    context: JSON.stringify(record.context),
  };
}

function savedRevision(saved: unknown): number | undefined {
  const revision = (saved as { revision?: unknown } | null | undefined)?.revision;
  return typeof revision === "number" ? revision : undefined;
}

/** A saved pair state as a memory thread of its own; it must be the pair's memory thread. */
async function openSaved(key: PairKey, saved: unknown, registry: ThreadTypeRegistry): Promise<LogThread> {
  const thread = await createMemoryStore({ registry }).open(saved);
  if (!(thread instanceof LogThread) || thread.type !== "memory" || thread.id !== key.threadId) {
    throw new ThreadManagerError(
      `The thread manager's load callback returned a ${quoteUntrusted(thread.type)} thread ${quoteUntrusted(thread.id)} for pair thread ${JSON.stringify(key.threadId)}: load must return the state save was given for that key.`,
    );
  }
  return thread;
}

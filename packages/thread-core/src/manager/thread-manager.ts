import { defaultRegistry } from "../create-registry.js";
import {
  ConcurrencyError,
  quoteUntrusted,
  SkeinError,
  ThreadExistsError,
  ThreadNotFoundError,
  UnsupportedOperationError,
} from "../errors.js";
import { assertThreadId } from "../ids.js";
import type { Message, MessageInput } from "../message.js";
import type { ThreadTypeRegistry } from "../spec/thread-store.js";
import type { ThreadStore } from "../store/store.js";
import type { Thread } from "../thread.js";
import type { ThreadState } from "../thread-type.js";
import { CallbackThread, type PairStorage } from "./callback-thread.js";
import { LruCache } from "./lru-cache.js";
import { chatPrefix, type PairKey, pairKey, pairMetadata } from "./pair-key.js";
import { ThreadManagerError } from "./thread-manager-error.js";

/**
 * A pair thread's state (memory thread JSON, with its whole log) as `save` gets it: every save serialises and
 * sends the whole log, so its cost grows with the thread's length (a store's appends do not).
 */
export type PairState = ThreadState & { revision: number };

/** Options of the manager's `save` callback: the revision the state was read at. */
export interface ThreadManagerSaveOptions {
  /**
   * The revision the stored state must still have for this save to store (0: nothing stored yet, or a
   * state stored at revision 0). The new state's own `revision` is always greater.
   */
  expectedRevision: number;
}

/**
 * Where a callback-backed manager keeps its pair threads. `save` must be a compare-and-set: over SQL,
 * `UPDATE pairs SET state = $state, revision = $state.revision WHERE thread_id = $id AND revision = $expected`
 * (an insert when `expectedRevision` is 0 and nothing is stored), then report whether a row changed.
 */
export interface ThreadManagerCallbacks {
  /** The JSON `save` last stored for this key (it carries its `revision`), or undefined if none. */
  load(key: PairKey): Promise<unknown>;
  /**
   * Stores `state` only if the revision now stored for `key.threadId` equals `options.expectedRevision`
   * (a key with nothing stored counts as revision 0), atomically with that check, and resolves `true`;
   * otherwise stores nothing and resolves `false` (or throws a `ConcurrencyError`). The manager then loads
   * the newer state, re-appends its unsaved messages and saves again. Keep `state.revision` next to the state
   * (or read it from the JSON) to compare.
   */
  save(key: PairKey, state: PairState, options: ThreadManagerSaveOptions): Promise<boolean>;
  /** The pairs of a chat; without it, `list` is unsupported. */
  list?(chatId: string): Promise<PairKey[]>;
}

interface CommonOptions {
  /** The name of the chat's user in `get(chatId, agent)` keys. @default "user" */
  user?: string;
  /**
   * How many pair threads the manager keeps live, least recently used forgotten first. Within that bound,
   * every `get` of a pair returns the same object. @default 1000
   */
  cacheSize?: number;
}

/** Options of `createThreadManager`: a store, or `load` and `save` callbacks. */
export type ThreadManagerOptions =
  | ({ store: ThreadStore } & CommonOptions)
  | (ThreadManagerCallbacks & { registry?: ThreadTypeRegistry } & CommonOptions);

/** Pair threads of a chat: one isolated thread per user–agent or agent–agent pair. */
export interface ThreadManager {
  /**
   * The thread of the user ↔ `first` (one argument), or of `first` ↔ `second`: the same thread in either
   * order, and the same object while it stays in the manager's cache. Concurrent first calls create one thread.
   */
  get(chatId: string, first: string, second?: string): Promise<Thread>;
  /**
   * Persists a thread got from this manager. With a store, threads persist as they change and this is a no-op.
   * With callbacks, a compare-and-set on the revision last loaded or saved: when another manager saved first,
   * the newer state is loaded and this thread's unsaved messages are appended on top (unsaved rollbacks,
   * checkpoints or updates make it a `ConcurrencyError` instead, and the next `get` loads afresh).
   */
  save(thread: Thread): Promise<void>;
  /** Appends one message or many and saves, in one step (merging like `save`); returns them as stored. */
  appendAndSave(thread: Thread, messages: MessageInput | MessageInput[]): Promise<Message[]>;
  list(chatId: string): Promise<PairKey[]>;
}

const DEFAULT_CACHE_SIZE = 1000;

interface Entry {
  key: PairKey;
  loading: Promise<Thread>;
}

/**
 * Gives every communication pair of a chat its own isolated thread.
 * @example const manager = createThreadManager({ store }); const thread = await manager.get(chatId, "planner", "writer");
 */
export function createThreadManager(options: ThreadManagerOptions): ThreadManager {
  const user = options.user ?? "user";
  const cache = new LruCache<string, Promise<Thread>>(options.cacheSize ?? DEFAULT_CACHE_SIZE);
  // Per object, not per id: released with the object, so it never grows with the pairs touched.
  const owners = new WeakMap<Thread, Entry>();
  const backend = "store" in options ? storeBackend(options.store) : callbackBackend(options);
  const entryOf = (thread: Thread): Entry => {
    const entry = owners.get(thread);
    if (!entry) {
      throw new ThreadManagerError(
        `Thread ${quoteUntrusted(thread?.id)} was not got from this thread manager: save only threads its get returned (another manager's, or a thread opened from the store directly, is saved by its own).`,
      );
    }
    return entry;
  };
  /**
   * A failed save leaves the object behind: the next `get` loads the pair afresh. Whatever failed (a
   * conflict that cannot be merged, storage whose revisions went back, a callback that threw), the object
   * keeps its unsaved changes for its holder to retry, and the saves stay compare-and-sets, so a fresh
   * object beside it loses nothing.
   */
  const forgetOnFailure = async <T>(entry: Entry, action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (error) {
      cache.deleteIf(entry.key.threadId, entry.loading);
      throw error;
    }
  };
  const open = (key: PairKey): Promise<Thread> => {
    // Concurrent first calls share one load.
    const loading: Promise<Thread> = backend.open(key).then((thread) => {
      owners.set(thread, { key, loading });
      return thread;
    });
    cache.set(key.threadId, loading);
    loading.catch(() => cache.deleteIf(key.threadId, loading));
    return loading;
  };
  /** A cached store thread may have been deleted (through it, or in another process): open it again then. */
  const live = async (key: PairKey, cached: Promise<Thread>): Promise<Thread> => {
    const thread = await cached;
    if (await backend.exists(thread)) return thread;
    cache.deleteIf(key.threadId, cached);
    return cache.get(key.threadId) ?? open(key);
  };
  return {
    get(chatId, first, second) {
      let key: PairKey;
      try {
        key =
          second === undefined ? pairKey(chatId, { user, agent: first }) : pairKey(chatId, [first, second]);
      } catch (error) {
        return Promise.reject(error); // a bad name is a rejected promise, like every other failure of get
      }
      const cached = cache.get(key.threadId);
      return cached ? live(key, cached) : open(key);
    },
    async save(thread) {
      const entry = entryOf(thread);
      await forgetOnFailure(entry, () => backend.save(thread));
    },
    async appendAndSave(thread, messages) {
      const entry = entryOf(thread);
      return forgetOnFailure(entry, () => backend.appendAndSave(thread, messages));
    },
    list: (chatId) => backend.list(chatId),
  };
}

interface Backend {
  open(key: PairKey): Promise<Thread>;
  /**
   * Whether a cached thread still exists where it is kept. A store thread is read again (one small read of
   * its record, which also brings it up to date); a callback thread cannot be deleted through the manager.
   */
  exists(thread: Thread): Promise<boolean>;
  save(thread: Thread): Promise<void>;
  appendAndSave(thread: Thread, messages: MessageInput | MessageInput[]): Promise<Message[]>;
  list(chatId: string): Promise<PairKey[]>;
}

function storeBackend(store: ThreadStore): Backend {
  const find = (key: PairKey) => store.get(key.threadId);
  return {
    async open(key) {
      try {
        return await find(key);
      } catch (error) {
        if (!ThreadNotFoundError.isInstance(error)) throw error;
      }
      try {
        return await store.create({ id: key.threadId, metadata: pairMetadata(key) });
      } catch (error) {
        if (ThreadExistsError.isInstance(error)) return find(key); // another process created it first
        throw error;
      }
    },
    async exists(thread) {
      try {
        await thread.refresh();
        return true;
      } catch (error) {
        if (ThreadNotFoundError.isInstance(error)) return false;
        throw error;
      }
    },
    async save(thread) {
      await store.save(thread);
    },
    async appendAndSave(thread, messages) {
      const appended = await thread.append(messages);
      await store.save(thread);
      return appended;
    },
    async list(chatId) {
      const pairs: PairKey[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ prefix: chatPrefix(chatId), cursor, limit: 100 });
        for (const item of page.items) {
          const metadata = (await store.get(item.id)).metadata;
          const participants = metadata.participants as [string, string];
          const owner = typeof metadata.user === "string" ? { user: metadata.user } : {};
          pairs.push({ chatId, participants, ...owner, threadId: item.id });
        }
        cursor = page.cursor;
      } while (cursor);
      return pairs;
    },
  };
}

function callbackBackend(callbacks: ThreadManagerCallbacks & { registry?: ThreadTypeRegistry }): Backend {
  const registry = callbacks.registry ?? defaultRegistry();
  const call = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (error) {
      if (SkeinError.isInstance(error)) throw error;
      throw new ThreadManagerError(
        `The thread manager's ${name} callback failed: ${(error as Error)?.message ?? error}`,
        { cause: error },
      );
    }
  };
  const storage: PairStorage = {
    load: (key) => call("load", () => callbacks.load(key)),
    async save(key, state, options) {
      let stored: unknown;
      try {
        stored = await call("save", () => callbacks.save(key, state, options));
      } catch (error) {
        if (ConcurrencyError.isInstance(error)) return false;
        throw error;
      }
      if (typeof stored !== "boolean") {
        throw new ThreadManagerError(
          `The thread manager's save callback resolved ${typeof stored}, not true or false: it must store the state only while the stored revision equals expectedRevision, and say whether it did.`,
        );
      }
      return stored;
    },
  };
  const own = (thread: Thread) => thread as CallbackThread;
  return {
    open(key) {
      assertThreadId(key.threadId);
      return CallbackThread.load(key, storage, registry);
    },
    exists: async () => true,
    save: (thread) => own(thread).save(),
    appendAndSave: (thread, messages) => own(thread).appendAndSave(messages),
    async list(chatId) {
      const list = callbacks.list;
      if (!list)
        throw new UnsupportedOperationError(
          "thread manager",
          "list",
          "pass a list callback to list a chat's pairs.",
        );
      return call("list", () => list(chatId));
    },
  };
}

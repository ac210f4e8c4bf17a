import { createHash } from "node:crypto";
import { defaultRegistry } from "../create-registry.js";
import { SkeinError, ThreadExistsError, ThreadNotFoundError, UnsupportedOperationError } from "../errors.js";
import { assertThreadId } from "../ids.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import type { Registry } from "../registry.js";
import type { ThreadStore } from "../store/store.js";
import type { Thread } from "../thread.js";
import type { ThreadState } from "../thread-type.js";

/** Who talks in a pair thread, in a stable order, and the thread id they map to. */
export interface PairKey {
  chatId: string;
  participants: [string, string];
  threadId: string;
}

export interface ThreadManagerCallbacks {
  /** The saved JSON of a pair's thread, or undefined if it has none yet. */
  load(key: PairKey): Promise<unknown>;
  save(key: PairKey, state: ThreadState): Promise<void>;
  /** The pairs of a chat; without it, `list` is unsupported. */
  list?(chatId: string): Promise<PairKey[]>;
}

export type ThreadManagerOptions =
  | { store: ThreadStore; user?: string }
  | (ThreadManagerCallbacks & { registry?: Registry; user?: string });

/** Raised when a `load`/`save`/`list` callback fails; `cause` holds what it threw. */
export class ThreadManagerError extends SkeinError {}

export interface ThreadManager {
  /** The thread of `user ↔ first`, or of `first ↔ second`: the same thread in either order. */
  get(chatId: string, first: string, second?: string): Promise<Thread>;
  /** Persists a thread got from this manager (a no-op for threads that live in a store). */
  save(thread: Thread): Promise<void>;
  list(chatId: string): Promise<PairKey[]>;
}

/**
 * Gives every communication pair of a chat its own isolated thread.
 * @example const manager = createThreadManager({ store }); const thread = await manager.get(chatId, "planner", "writer");
 */
export function createThreadManager(options: ThreadManagerOptions): ThreadManager {
  const user = options.user ?? "user";
  const pending = new Map<string, Promise<Thread>>();
  const keys = new Map<string, PairKey>();
  const backend = "store" in options ? storeBackend(options.store) : callbackBackend(options);
  return {
    get(chatId, first, second) {
      const key = pairKey(chatId, second === undefined ? [user, first] : [first, second]);
      keys.set(key.threadId, key);
      const running = pending.get(key.threadId);
      if (running) return running;
      // Concurrent first calls share one creation; the entry goes once it settles.
      const created = backend.getOrCreate(key).finally(() => pending.delete(key.threadId));
      pending.set(key.threadId, created);
      return created;
    },
    async save(thread) {
      const key = keys.get(thread.id);
      if (!key) throw new ThreadNotFoundError(thread.id);
      await backend.save(key, thread);
    },
    list: (chatId) => backend.list(chatId),
  };
}

/** Hashes keep ids short and make every (chat, pair) distinct whatever characters the names hold. */
function digest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 22);
}

export function pairKey(chatId: string, pair: [string, string]): PairKey {
  for (const name of [chatId, ...pair]) {
    if (typeof name !== "string" || name.length === 0)
      throw new TypeError("chat ids and names are non-empty strings");
  }
  const participants = [...pair].sort() as [string, string];
  return { chatId, participants, threadId: `${chatPrefix(chatId)}${digest(participants)}` };
}

function chatPrefix(chatId: string): string {
  return `pair.${digest(chatId)}.`;
}

interface Backend {
  getOrCreate(key: PairKey): Promise<Thread>;
  save(key: PairKey, thread: Thread): Promise<void>;
  list(chatId: string): Promise<PairKey[]>;
}

function storeBackend(store: ThreadStore): Backend {
  const find = (key: PairKey) => store.get(key.threadId);
  return {
    async getOrCreate(key) {
      try {
        return await find(key);
      } catch (error) {
        if (!(error instanceof ThreadNotFoundError)) throw error;
      }
      try {
        return await store.create({
          id: key.threadId,
          metadata: { chatId: key.chatId, participants: key.participants },
        });
      } catch (error) {
        if (error instanceof ThreadExistsError) return find(key); // another process created it first
        throw error;
      }
    },
    async save(_key, thread) {
      await store.save(thread);
    },
    async list(chatId) {
      const pairs: PairKey[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ prefix: chatPrefix(chatId), cursor, limit: 100 });
        for (const item of page.items) {
          const thread = await store.get(item.id);
          const participants = thread.metadata.participants as [string, string];
          pairs.push({ chatId, participants, threadId: item.id });
        }
        cursor = page.cursor;
      } while (cursor);
      return pairs;
    },
  };
}

function callbackBackend(callbacks: ThreadManagerCallbacks & { registry?: Registry }): Backend {
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
  return {
    async getOrCreate(key) {
      assertThreadId(key.threadId);
      const saved = await call("load", () => callbacks.load(key));
      const store = createMemoryStore({ registry });
      if (saved !== undefined && saved !== null) return store.open(saved);
      const thread = await store.create({
        id: key.threadId,
        metadata: { chatId: key.chatId, participants: key.participants },
      });
      await call("save", () => callbacks.save(key, thread.toJSON() as ThreadState));
      return thread;
    },
    async save(key, thread) {
      await call("save", () => callbacks.save(key, thread.toJSON() as ThreadState));
    },
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

import type { LogState } from "../local/log-state.js";
import type { ParsedState, ParseOptions, Registry } from "../registry.js";
import type { Thread } from "../thread.js";
import type { ThreadState, ThreadType } from "../thread-type.js";

/** Options of `store.create`: the new thread's id, metadata and context. */
export interface CreateThreadOptions {
  /** @default a new sortable id */
  id?: string;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
}

/** The most threads one `list` page holds; page on with the cursor for more. Every store refuses more. */
export const MAX_LIST_LIMIT = 1_000;

/** Options of `store.list`: an id prefix, a cursor from the previous page and a page size. */
export interface ListOptions {
  /** Only ids that start with this. */
  prefix?: string;
  /** The `cursor` of the previous page. */
  cursor?: string;
  /** A whole number from 1 to `MAX_LIST_LIMIT` (1000); else `InvalidListOptionsError`. @default 100 */
  limit?: number;
}

/** A thread as `store.list` shows it: id, type and when it last changed. */
export interface ThreadSummary {
  id: string;
  type: string;
  updatedAt: string;
}

/** One page of `store.list`: the threads, and a cursor when there are more. */
export interface ThreadPage {
  items: ThreadSummary[];
  /** Pass to `list` for the next page; absent on the last page. */
  cursor?: string;
}

/** Holds threads of any type; local threads keep their logs in it. */
export interface ThreadStore {
  readonly specificationVersion: "v1";
  /** The store's URL with any password removed. */
  readonly url: string;
  /** The type of the threads `create()` makes here (`memory`, `fs`, `redis`). */
  readonly nativeType: string;
  readonly registry: Registry;

  /** A new local thread native to this store, or, given a type id, one created through its adapter and saved. */
  create(options?: CreateThreadOptions): Promise<Thread>;
  create(type: string, options?: Record<string, unknown>): Promise<Thread>;
  /**
   * The thread stored under `id`, bound to its behaviour; `ThreadNotFoundError` if there is none, and
   * `UnsupportedOperationError` for a type registered without behaviour (read those with `getState`).
   */
  get(id: string): Promise<Thread>;
  /**
   * The state stored under `id`, of any type, parsed through the registry: validated, migrated, nested
   * states resolved; not bound. A local thread gives its JSON (`toJSON()`).
   */
  getState<State extends ThreadState = ThreadState>(id: string): Promise<State>;
  getState(id: string, options: ParseOptions): Promise<ParsedState>;
  /**
   * Binds a state from anywhere (`JSON.parse` of a thread) to its behaviour. A type registered without
   * behaviour gives a `PlainStateThread`: its state, every operation refused.
   */
  open(state: unknown): Promise<Thread>;
  /**
   * Persists a thread's state, or a plain state of any registered type, under its id (local threads of
   * this store persist as they change). A state is validated and migrated first.
   * `ifRevision` writes only if the stored state is still at that revision (0: not stored yet).
   */
  save(thread: Thread | ThreadState, options?: { ifRevision?: number }): Promise<{ revision: number }>;
  /**
   * Brings exported JSON in: a local thread's log (memory JSON, or a local type of your own with its
   * log) becomes a thread native to this store; other states are validated, migrated and saved.
   */
  import(state: unknown, options?: { id?: string }): Promise<Thread>;
  /** The thread as portable JSON: a local thread becomes `memory` JSON with its whole history. */
  export(id: string): Promise<LogState | ThreadState>;
  list(options?: ListOptions): Promise<ThreadPage>;
  /**
   * Deletes what is stored under `id`; false when nothing was. `ifRevision` deletes only if the stored
   * thread or state is still at that revision, checked in the same atomic step (else `ConcurrencyError`).
   */
  delete(id: string, options?: { ifRevision?: number }): Promise<boolean>;
  /**
   * The store as one tenant sees it: threads created there are invisible to and unreachable from every
   * other scope and from the unscoped store. Scopes nest. Closing a scope releases nothing.
   */
  scope(tenant: string): ThreadStore;
  close(): Promise<void>;
  /** `close()`, so `await using store = await openStore(url)` closes the store when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What an adapter package's factory (`fsAdapter(options)`) returns. */
export interface SkeinAdapter {
  readonly specificationVersion: "v1";
  /** The npm package, named in errors. */
  readonly packageName: string;
  /** URL schemes this adapter opens stores for, without the colon (`file`, `redis`). */
  readonly schemes: readonly string[];
  /** Thread types the adapter provides; `openStore` registers them. */
  readonly types: readonly ThreadType[];
  openStore?(
    url: URL,
    context: { registry: Registry; adapters: readonly SkeinAdapter[] },
  ): Promise<ThreadStore>;
}

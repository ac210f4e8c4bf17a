// The contracts a thread type and a store share. One file, because they name each other: a type's `bind` gets
// the store and its adapters, an adapter carries its types, a store holds the registry of types. The registry is
// the contract `ThreadTypeRegistry` here; the engine's `Registry` class implements it.
//
// `zod` is the one import from outside spec/: a type's schema is a zod schema (SPEC §3), and zod is thread-core's
// only dependency. Type-only, so the spec still loads nothing.
import type { z } from "zod";
import type { EncryptionOptions } from "./encryption-options.js";
import type { EraseOptions, ErasureReport } from "./erasure.js";
import type { LogState } from "./log-state.js";
import type { ParsedState, ParseOptions } from "./parsed-state.js";
import type { RekeyOptions, RekeyReport } from "./rekey.js";
import type { ExpiryInput, RetentionDuration, SweepOptions, SweepProgress } from "./retention.js";
import type { Thread } from "./thread.js";
import type { ThreadState } from "./thread-state.js";

/** What `bind` receives besides the state: where the thread lives and how nested states are read. */
export interface BindEnvironment {
  registry: ThreadTypeRegistry;
  /** The store that opened the state, when there is one. */
  store?: ThreadStore;
  /** The adapters the store was opened with, holding clients and credentials that states never carry. */
  adapters?: readonly SkeinAdapter[];
  /**
   * True when the state was read from `store` (`store.get`), not brought to it as JSON (`store.open`): a
   * thread of such a state that the store no longer holds was deleted there, not never saved there.
   */
  stored?: boolean;
}

/** What `defineThreadType` takes: type id, version, zod schema, migrations and an optional `bind`. */
export interface ThreadTypeDefinition<State extends ThreadState = ThreadState> {
  /**
   * The version of this contract the definition is written to; `register` refuses any other with
   * `UnsupportedSpecificationError`. @default "v1"
   */
  specificationVersion?: "v1";
  /** The `$type` id: skein's own are bare words, yours are namespaced (`acme.ticket`). */
  type: string;
  /** The current schema version; states with a lower `$v` are migrated forward. @default 1 */
  version?: number;
  schema: z.ZodType<State, unknown>;
  /** `migrations[n]` turns a version-n state into a version-(n+1) state. */
  migrations?: Record<number, (state: Record<string, unknown>) => Record<string, unknown>>;
  /** Gives the state its behaviour; types without it can be parsed and saved but not opened as threads. */
  bind?(state: State, environment: BindEnvironment): Thread | Promise<Thread>;
  /**
   * Creates a new thread of this type (a remote conversation, say) from adapter-specific options and saves
   * its state in `environment.store`.
   */
  create?(options: Record<string, unknown>, environment: BindEnvironment): Promise<Thread>;
  /** Parses the nested thread states this state holds (a workflow's sub-threads) with `parseChild`. */
  nested?(state: State, parseChild: (child: unknown, key: string) => ThreadState): State;
  /**
   * `"reference"`: the state only names a local thread whose log a store keeps (`fs`, `redis`); a store
   * holding a log under the same id binds it, whatever kind of store wrote the reference.
   */
  storage?: "reference";
  /**
   * `true`: a local thread type of your own. Its threads are local threads of whatever store holds them
   * (append, fork, checkpoint, rollback, views, revisions) that also carry the typed fields `schema`
   * declares: `store.create("acme.ticket", { subject })`, `thread.update({ fields })`. No `bind` needed.
   */
  local?: boolean;
  /** The npm package that provides the type, named in errors. */
  packageName?: string;
}

/** A registered thread type: its definition, with parse and bind ready for the registry. */
export interface ThreadType<State extends ThreadState = ThreadState> extends ThreadTypeDefinition<State> {
  readonly version: number;
  /** `"state"`: a nested state (`defineStateType`), found inside threads, with no id of its own. */
  readonly kind?: "thread" | "state";
}

/**
 * The `$type` registry: which thread types a process can read, validate, migrate and bind. `createRegistry()`
 * and `defaultRegistry()` give the engine's implementation (`Registry`).
 */
export interface ThreadTypeRegistry {
  /**
   * Adds a thread or nested state type. A second registration of a type id is a `DuplicateThreadTypeError`, an
   * id of skein's own or of another package's namespace a `ThreadTypeClashError`, and a `specificationVersion`
   * other than `"v1"` an `UnsupportedSpecificationError`.
   */
  register<State extends ThreadState>(type: ThreadType<State>): this;
  /** Registers `type` unless this very definition (or its package's) is registered already. */
  ensure<State extends ThreadState>(type: ThreadType<State>): this;
  get(type: string): ThreadType | undefined;
  has(type: string): boolean;
  /** The registered types, sorted by id. */
  types(): ThreadType[];
  /** Validates, migrates and resolves nested states; the result is a state, not yet bound to behaviour. */
  parse(json: unknown, options?: ParseOptions): ParsedState;
  /** A thread's `context` with every nested state in it validated and migrated. */
  parseContext(context: Record<string, unknown>, options?: ParseOptions): Record<string, unknown>;
  /** One JSON Schema (draft 2020-12) of every registered state, for readers in other languages. */
  jsonSchema(): Record<string, unknown>;
}

/** Options of `store.create`: the new thread's id, metadata and context. */
export interface CreateThreadOptions {
  /** @default a new sortable id */
  id?: string;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** Who the thread belongs to (a user, a tenant member): 1–256 characters, no control characters. */
  owner?: string;
  /** What a sidebar shows for it: at most 1,000 characters. */
  title?: string;
  /** When the thread expires (a `Date`, an ISO string or epoch ms): gone for readers from then on. @default never */
  expiresAt?: ExpiryInput | null;
}

/** The order of `store.list`: by id, by last change (append, rollback, update…) or by creation. */
export type ListOrder = "id" | "updated" | "created";

/** Options of `store.list`: which threads, in what order, from which cursor, how many. */
export interface ListOptions {
  /** Only ids that start with this (with `order: "id"` only). */
  prefix?: string;
  /** Only this owner's threads. */
  owner?: string;
  /** Only threads whose top-level metadata keys equal these JSON values (`{ agent: "planner" }`). */
  where?: Record<string, unknown>;
  /** @default "id" */
  order?: ListOrder;
  /** @default "asc" for `order: "id"`, "desc" (newest first) for the others */
  direction?: "asc" | "desc";
  /**
   * The `cursor` of the previous page, given with the same `owner`, `where`, `order`, `direction` and `prefix`.
   * A thread that changes while a client pages appears at most once in that walk.
   */
  cursor?: string;
  /** A whole number from 1 to `MAX_LIST_LIMIT` (1000); else `InvalidListOptionsError`. @default 100 */
  limit?: number;
}

/** Options of `store.count`: which threads to count. */
export interface CountOptions {
  owner?: string;
  where?: Record<string, unknown>;
}

/** A thread as `store.list` shows it: what a sidebar renders, read without reading its messages. */
export interface ThreadSummary {
  id: string;
  type: string;
  /** Absent when the thread has no owner. */
  owner?: string;
  /** Absent when the thread has no title. */
  title?: string;
  /** When the thread expires, set by `create` or `update({ expiresAt })`; absent when it was not. */
  expiresAt?: string;
  /** Absent for a saved state that carries none. */
  createdAt?: string;
  updatedAt: string;
  /** How many messages a local thread holds; absent for other types, whose messages live elsewhere. */
  messageCount?: number;
  metadata: Record<string, unknown>;
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
  readonly registry: ThreadTypeRegistry;

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
  /**
   * The thread as portable JSON: a local thread becomes `memory` JSON with its whole history. On an
   * encrypted store, `{ encrypted: true }` keeps every unit sealed, with its key id, under a `$encrypted`
   * marker: only a store with the same keys imports it (same id and scope).
   */
  export(id: string, options?: { encrypted?: boolean }): Promise<LogState | ThreadState>;
  list(options?: ListOptions): Promise<ThreadPage>;
  /**
   * How many threads `list` would give for these options, where the store can count them without reading
   * every thread; else `UnsupportedOperationError`, saying so.
   */
  count(options?: CountOptions): Promise<number>;
  /**
   * Deletes what is stored under `id`; false when nothing was. `ifRevision` deletes only if the stored
   * thread or state is still at that revision, checked in the same atomic step (else `ConcurrencyError`).
   */
  delete(id: string, options?: { ifRevision?: number }): Promise<boolean>;
  /**
   * Erases every thread of `owner` in this store and all its scopes: their messages, history, checkpoints,
   * operation ids and catalogue entries, and segments no kept thread shares; service threads through their
   * adapter. Other owners' forks are kept (listed in the report) unless `includeSharedForks`. Safe to run
   * again after a crash or an abort: it finishes, and a run with nothing left reports zero.
   * @example const report = await store.erase({ owner: "u-7" });
   */
  erase(options: EraseOptions): Promise<ErasureReport>;
  /**
   * The store as one tenant sees it: threads created there are invisible to and unreachable from every
   * other scope and from the unscoped store. Scopes nest. Closing a scope releases nothing.
   */
  scope(tenant: string, options?: ScopeOptions): ThreadStore;
  /**
   * Deletes the threads of this store (or scope) that expired, in batches, each with a fenced delete so a
   * thread written after it was picked stays; resumable (run it again after a kill). Forks keep what they share.
   */
  sweep(options?: SweepOptions): Promise<SweepProgress>;
  /**
   * Crypto-shreds `owner`: destroys their keys through the store's `encryption.destroyOwnerKey` (per-owner
   * keys), so every copy of their threads, backups included, reads as `KeyNotFoundError` from then on;
   * listing still shows ids, owner and timestamps. `UnsupportedOperationError` on a store without per-owner
   * keys that can be destroyed.
   */
  shredOwner(owner: string): Promise<void>;
  /**
   * Encrypted stores only: re-encrypts, in place and in batches, everything stored under an older key with
   * the current one, beside live writers; resumable (a rerun skips what is done). A store that does not
   * encrypt, or whose backend cannot rewrite in place, refuses with `UnsupportedOperationError`.
   * @example const report = await store.rekey({ onProgress: console.log }); // report.remaining: {} → drop old keys
   */
  rekey(options?: RekeyOptions): Promise<RekeyReport>;
  close(): Promise<void>;
  /** `close()`, so `await using store = await openStore(url)` closes the store when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A store's (or a scope's) retention policy. A local thread expires at the earliest of its own `expiresAt`,
 * its last change plus `idleFor` and its creation plus `maxAge`, unless `keep` says to keep it. An expired
 * thread is gone for readers at once (`get` and `open` throw `ThreadNotFoundError`, `list` and `count`
 * leave it out); `store.sweep()` deletes it.
 */
export interface RetentionOptions {
  /** Expire a thread this long after its last change (append, update, rollback…). @default never */
  idleFor?: RetentionDuration;
  /** Expire a thread this long after it was created, however busy. @default never */
  maxAge?: RetentionDuration;
  /** Return true to keep a thread that would expire (a pinned chat, a legal hold). Called often: keep it cheap. */
  keep?: (summary: ThreadSummary) => boolean;
  /** The clock expiry is measured by, in epoch milliseconds (tests move it). @default Date.now */
  now?: () => number;
}

/** Options of `store.scope`. */
export interface ScopeOptions {
  /** The scope's own retention policy, in place of the store's. @default the store's */
  retention?: RetentionOptions;
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
    context: {
      registry: ThreadTypeRegistry;
      adapters: readonly SkeinAdapter[];
      /** Present when the application asked for encryption at rest; a store that cannot do it refuses. */
      encryption?: EncryptionOptions;
    },
  ): Promise<ThreadStore>;
}

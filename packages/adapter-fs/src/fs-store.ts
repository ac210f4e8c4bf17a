import type { Registry, SkeinAdapter } from "@skein/thread-core";
import type { LocalStore } from "@skein/thread-core/driver";
import { fsLogStore } from "./fs-adapter.js";
import type { Durability } from "./records/durable-files.js";

/** Options of `fsStore`: where the threads live and how durably they are written. */
export interface FsStoreOptions {
  /** The directory that holds the store, created on first use; relative paths start at `process.cwd()`. */
  directory: string;
  /**
   * Whether a directory that holds no store yet is made one (with its missing parents). `false` opens only an
   * existing store: a missing one is a `StoreNotFoundError`, and nothing is created (what `skein ls` and
   * `migrate --from` use, so that a typo in a path litters nothing).
   * @default true
   */
  create?: boolean;
  /** The registry that parses and binds the store's threads. @default defaultRegistry() */
  registry?: Registry;
  /**
   * `"fsync"`: a change is on disk when its call returns. `"batch"`: it has reached the operating system
   * (it survives the process being killed) and is flushed to disk by the OS's own schedule and by
   * `close()`; a power loss may lose the newest changes, never tear a thread.
   * @default "fsync"
   */
  durability?: Durability;
  /** How long a change waits for its thread's lock before `LockTimeoutError`. @default 10_000 */
  lockTimeoutMs?: number;
  /**
   * A thread's lock its owner has not refreshed for this long is taken over from a process that stopped
   * running (SIGSTOP, starved) in the middle of a change (an append, a checkpoint, a fork, a rollback, an
   * update, a create or delete, a state record's save), which then fails with `LockLostError` (nothing of
   * it landed), or from an owner that cannot be checked (a process on another host). On this host, locks
   * of dead processes (or reused pids) are taken over at once, and a live owner's references lock never:
   * see "Locking" in the README. Keep it below `lockTimeoutMs`.
   * @default 5_000
   */
  staleLockMs?: number;
  /** Adapters whose threads this store binds when it reads their saved states. @default [] */
  adapters?: readonly SkeinAdapter[];
  /** What `store.url` reports. @default the directory's file: URL */
  url?: string;
}

/**
 * A store that keeps threads in files under a directory: local threads (`fs`) as append-only logs, other
 * threads as their saved states.
 * @example const store = fsStore({ directory: ".skein" }); const thread = await store.create();
 */
export function fsStore(options: FsStoreOptions): LocalStore {
  return fsLogStore.store(options);
}

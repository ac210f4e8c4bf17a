import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { InvalidStoreUrlError, type ThreadTypeRegistry } from "@skein/thread-core";
import {
  defineLogStore,
  type EncryptionOptions,
  type LocalStore,
  type SkeinAdapter,
} from "@skein/thread-core/driver";
import { SOURCE } from "./errors.js";
import { FsLogDriver } from "./fs-log-driver.js";
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
  registry?: ThreadTypeRegistry;
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
  /**
   * Encrypts what the store keeps at rest (AES-256-GCM): `{ keys: { "2026-12": key }, current: "2026-12" }`
   * with 32-byte keys, or `{ keyProvider, current }`. See thread-core's README, "Encryption at rest".
   * @default no encryption
   */
  encryption?: EncryptionOptions;
}

/**
 * The fs store on thread-core's driver kit: the `fs` thread type, the store factory behind `fsStore` and
 * the `file:` adapter, registered when this module loads so that `openStore("file:…")` and the CLI find it.
 */
export const fsLogStore = defineLogStore<FsStoreOptions>({
  type: "fs",
  packageName: "@skein/adapter-fs",
  schemes: ["file"],
  createDriver: (options) => new FsLogDriver(options),
  optionsFromUrl: fileUrlOptions,
  // `file:./relative` as written: a URL object would make it absolute at the root.
  optionsFromText: fileUrlOptions,
  describe: (options) => options.url ?? pathToFileURL(resolve(options.directory)).href,
  // A store opened by URL makes its directory (or finds its store) at once, so that a path it cannot use
  // fails on open, with a `StoreDirectoryError` or `StoreNotFoundError`.
  verify: async (driver) => {
    await (driver as FsLogDriver).prepare();
  },
});

/**
 * A store that keeps threads in files under a directory: local threads (`fs`) as append-only logs, other
 * threads as their saved states.
 * @example const store = fsStore({ directory: ".skein" }); const thread = await store.create();
 */
export function fsStore(options: FsStoreOptions): LocalStore {
  return fsLogStore.store(options);
}

/** Options for every store the adapter opens; a URL's `?durability=` overrides `durability`. */
export type FsAdapterOptions = Omit<FsStoreOptions, "directory" | "registry" | "adapters" | "url">;

/** The `SkeinAdapter` for `file:` URLs, as `fsAdapter()` returns it. */
export interface FsAdapter extends SkeinAdapter {
  /**
   * Opens the store at a `file:` URL: `file:///abs/path`, or, given as a string, `file:./relative`,
   * `file:relative` or `file:/abs` (relative to `process.cwd()`). The directory is created if missing,
   * unless the adapter's options say `create: false` (then a path without a store is `StoreNotFoundError`).
   */
  openStore(
    url: URL | string,
    context?: { registry?: ThreadTypeRegistry; adapters?: readonly SkeinAdapter[] },
  ): Promise<LocalStore>;
}

/**
 * The `file:` adapter for `openStore`: it provides the `fs` thread type and opens file stores.
 * @example const store = await openStore("file:///var/lib/app/threads", { adapters: [fsAdapter()] });
 */
export function fsAdapter(options: FsAdapterOptions = {}): FsAdapter {
  return fsLogStore.adapter(options);
}

/** A store's options from a `file:` URL: its directory, its `durability` (which wins), the URL as written. */
function fileUrlOptions(url: URL | string, options: Partial<FsStoreOptions>): FsStoreOptions {
  const { directory, durability } = parseFileUrl(url);
  return { ...options, ...(durability ? { durability } : {}), directory, url: String(url) };
}

/**
 * The directory a `file:` URL names, and its `durability` query parameter. A URL object is always absolute
 * (WHATWG parsing turns `file:./x` into `file:///x`), so relative paths can only be given as strings.
 */
export function parseFileUrl(url: URL | string): { directory: string; durability?: Durability } {
  const text = String(url);
  if (!/^file:/i.test(text)) throw new InvalidStoreUrlError(text, "expected a file: URL", { source: SOURCE });
  const query = text.includes("?") ? text.slice(text.indexOf("?") + 1).split("#")[0] : "";
  const durability = new URLSearchParams(query).get("durability") ?? undefined;
  if (durability !== undefined && durability !== "fsync" && durability !== "batch") {
    throw new InvalidStoreUrlError(text, 'durability must be "fsync" or "batch"', { source: SOURCE });
  }
  const path = text.slice("file:".length).split(/[?#]/)[0] as string;
  let directory: string;
  try {
    directory =
      typeof url !== "string" || path.startsWith("//")
        ? fileURLToPath(typeof url === "string" ? new URL(text) : url)
        : resolve(decodeURIComponent(path));
  } catch (error) {
    throw new InvalidStoreUrlError(text, "it names no local directory", { source: SOURCE, cause: error });
  }
  if (path === "" || path === "//")
    throw new InvalidStoreUrlError(text, "it names no directory", { source: SOURCE });
  return { directory, ...(durability ? { durability } : {}) };
}

import { openStore, type ThreadStore } from "@skein/thread-core";
import { UiOptionsError } from "../errors.js";

/** What `startUi` takes; `store` may be a URL, which the UI then opens and owns. */
export interface UiOptions {
  /**
   * The store to show: an open store, which the UI leaves open, or a store URL (`file:./.skein`,
   * `redis://…`), which the UI opens with `openStore` and closes in `close()`.
   */
  store: ThreadStore | string;
  /** @default 0 (a free port) */
  port?: number;
  /** Offer fork, checkpoint and rollback. @default false (read-only) */
  write?: boolean;
  /** How often an open thread is checked for changes, in milliseconds. @default 1500 */
  pollInterval?: number;
}

/** The options checked and filled in, with the store opened when a URL was given. */
export interface CheckedUiOptions {
  store: ThreadStore;
  /** The UI opened the store from a URL, so it closes it too. */
  ownsStore: boolean;
  port: number;
  write: boolean;
  pollInterval: number;
}

const STORE_METHODS = ["get", "list", "close"] as const;

/** How an error names a value it was given, with the likely mistake when there is one. */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 60))}`;
  if (typeof (value as { then?: unknown }).then === "function") return "a Promise (add the missing await)";
  return typeof value === "object" ? "an object of another kind" : `the ${typeof value} ${String(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks every option before anything starts, and opens the store last, so a bad option never leaves a store
 * open behind it.
 */
export async function checkUiOptions(options: unknown): Promise<CheckedUiOptions> {
  if (!isObject(options)) throw new UiOptionsError("its options", "{ store }", describeValue(options));
  const { store, port = 0, write = false, pollInterval = 1500 } = options;
  const isStore = isObject(store) && STORE_METHODS.every((name) => typeof store[name] === "function");
  if (!isStore && typeof store !== "string") {
    throw new UiOptionsError(
      "options.store",
      'an open store or a store URL ("file:./.skein")',
      describeValue(store),
    );
  }
  // Node reads a port it cannot parse as a pipe path, and then has no port to report.
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UiOptionsError(
      "options.port",
      "a whole number from 0 (a free port) to 65535",
      describeValue(port),
    );
  }
  if (typeof write !== "boolean")
    throw new UiOptionsError("options.write", "true or false", describeValue(write));
  if (typeof pollInterval !== "number" || !Number.isFinite(pollInterval) || pollInterval <= 0) {
    throw new UiOptionsError(
      "options.pollInterval",
      "a number of milliseconds above 0",
      describeValue(pollInterval),
    );
  }
  const opened = typeof store === "string" ? await openStore(store) : (store as unknown as ThreadStore);
  return { store: opened, ownsStore: typeof store === "string", port, write, pollInterval };
}

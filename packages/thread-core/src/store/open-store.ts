import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { defaultRegistry } from "../create-registry.js";
import { AdapterNotInstalledError, InvalidStoreUrlError, SkeinError } from "../errors.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import type { Registry } from "../registry.js";
import type { SkeinAdapter, ThreadStore } from "./store.js";

export interface AdapterModule {
  packageName: string;
  load: () => Promise<Record<string, unknown>>;
  /** The factory the package exports, called with no options for a plain URL. */
  factory: string;
}

/** Which package opens each URL scheme. Loaded only when a URL asks for it. */
export const STORE_SCHEMES: Readonly<Record<string, AdapterModule>> = {
  file: {
    packageName: "@skein/adapter-fs",
    load: () => import("@skein/adapter-fs" as string),
    factory: "fsAdapter",
  },
  redis: {
    packageName: "@skein/adapter-redis",
    load: () => import("@skein/adapter-redis" as string),
    factory: "redisAdapter",
  },
  rediss: {
    packageName: "@skein/adapter-redis",
    load: () => import("@skein/adapter-redis" as string),
    factory: "redisAdapter",
  },
};

export interface OpenStoreOptions {
  /** Adapters to use: for their thread types, and for URL schemes they open. */
  adapters?: ReadonlyArray<SkeinAdapter | (() => SkeinAdapter)>;
  /** @default the process-wide registry */
  registry?: Registry;
}

/**
 * Opens a store by URL: `memory:`, `file:./dir`, `file:///abs`, `redis://…`, `rediss://…`.
 * @example const store = await openStore(process.env.SKEIN_STORE ?? "file:./.skein", { adapters: [openaiAdapter()] });
 */
export async function openStore(url: string | URL, options: OpenStoreOptions = {}): Promise<ThreadStore> {
  const registry = options.registry ?? defaultRegistry();
  const adapters = (options.adapters ?? []).map((adapter) =>
    typeof adapter === "function" ? adapter() : adapter,
  );
  const parsed = parseStoreUrl(url);
  const scheme = parsed.protocol.slice(0, -1);
  let opener = adapters.find((adapter) => adapter.schemes.includes(scheme) && adapter.openStore);
  if (!opener && scheme !== "memory") {
    const known = STORE_SCHEMES[scheme];
    if (!known) {
      throw new InvalidStoreUrlError(
        redactUrl(parsed),
        `unknown scheme "${scheme}:"; use memory:, file:, redis: or rediss:`,
      );
    }
    opener = await loadAdapter(known, scheme);
  }
  for (const adapter of [...adapters, ...(opener ? [opener] : [])]) {
    for (const type of adapter.types) registry.ensure(type);
  }
  if (!opener) return createMemoryStore({ registry, adapters });
  return (opener.openStore as NonNullable<SkeinAdapter["openStore"]>)(parsed, { registry, adapters });
}

/** Loads the package behind a scheme; exported for tests. */
export async function loadAdapter(known: AdapterModule, scheme: string): Promise<SkeinAdapter> {
  let module: Record<string, unknown>;
  try {
    module = await known.load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(known.packageName)) {
      throw new AdapterNotInstalledError(known.packageName, scheme, { cause: error });
    }
    throw error;
  }
  const factory = module[known.factory];
  if (typeof factory !== "function") {
    throw new SkeinError(
      `${known.packageName} does not export ${known.factory}(); is it a matching version?`,
    );
  }
  return (factory as () => SkeinAdapter)();
}

function parseStoreUrl(url: string | URL): URL {
  if (url instanceof URL) return url;
  if (typeof url !== "string" || url.trim() === "") {
    throw new InvalidStoreUrlError(
      String(url),
      "expected a URL such as memory:, file:./.skein or redis://localhost:6379",
    );
  }
  try {
    // WHATWG URLs make `file:./x` into `file:///x`; a relative path is relative to the working directory.
    const relative = /^file:(?!\/\/)([^?#]*)(.*)$/.exec(url);
    if (relative) return new URL(`${pathToFileURL(resolve(relative[1] || ".")).href}${relative[2]}`);
    return new URL(url);
  } catch {
    // Node's ERR_INVALID_URL keeps the input, password and all, so it is not kept as the cause.
    throw new InvalidStoreUrlError(
      redactUrlText(url),
      "it is not a URL (expected memory:, file:<path>, redis://…)",
    );
  }
}

/**
 * The URL without its passwords, for messages and `store.url`: its own, and those of URLs in its query
 * (Redis Cluster root nodes, `node=redis://:password@host`).
 */
export function redactUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = "***";
  return copy.href.replace(/([?&][^=&#]*=)([^&#]*)/g, (parameter, name: string, value: string) => {
    const redacted = redactUrlText(decodeParameter(value));
    return redacted === decodeParameter(value) ? parameter : `${name}${redacted}`;
  });
}

/**
 * Text that is, or holds, a URL or a `user:password@host` (valid or not) with every password replaced by
 * `***`: whatever stands between `user:` and the last `@` before the next `/`.
 */
export function redactUrlText(text: string): string {
  return text.replace(/^([^:/?#@\s]*):[^/]*@/, "$1:***@").replace(/(\/\/[^:/?#@]*):[^/]*@/g, "$1:***@");
}

function decodeParameter(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value;
  }
}

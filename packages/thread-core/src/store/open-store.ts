import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { defaultRegistry } from "../create-registry.js";
import { isEncryptingDriver } from "../encryption/encrypting-log-driver.js";
import {
  AdapterNotInstalledError,
  InvalidStoreUrlError,
  SkeinError,
  UnsupportedOperationError,
} from "../errors.js";
import { retentionPolicy } from "../lifecycle/retention-policy.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { RetentionOptions, ThreadTypeRegistry } from "../spec/thread-store.js";
import { assertSpecificationVersion } from "../specification-version.js";
import { redactUrl, redactUrlText } from "./redact-url.js";
import type { SkeinAdapter, ThreadStore } from "./store.js";
import { registeredStoreAdapter, registeredStoreSchemes, SKEIN_STORE_PACKAGES } from "./store-schemes.js";

/** Options of `openStore`: the adapters for the URL's scheme and the registry to use. */
export interface OpenStoreOptions {
  /** Adapters to use: for their thread types, and for URL schemes they open. */
  adapters?: ReadonlyArray<SkeinAdapter | (() => SkeinAdapter)>;
  /** @default the process-wide registry */
  registry?: ThreadTypeRegistry;
  /**
   * Encrypts the store at rest (AES-256-GCM): `{ keys: { "2026-12": key }, current: "2026-12" }` with 32-byte
   * keys, or `{ keyProvider, current }`. Local stores (fs, redis, postgres, and memory when asked) support it;
   * a store that cannot encrypt refuses with `UnsupportedOperationError`. @default no encryption
   */
  encryption?: EncryptionOptions;
  /**
   * How long threads are kept: `{ idleFor: "30d", maxAge?, keep? }`. An expired thread is gone for readers
   * at once; `store.sweep()` (or `skein sweep`) deletes it. Local stores support it; another refuses with
   * `UnsupportedOperationError`. Scopes take their own (`store.scope(name, { retention })`). @default none
   */
  retention?: RetentionOptions;
}

/**
 * Opens a store by URL: `memory:`, `file:./dir`, `file:///abs`, `redis://…`, `rediss://…`.
 * @example const store = await openStore(process.env.SKEIN_STORE ?? "file:./.skein", { adapters: [openaiAdapter()] });
 */
export async function openStore(url: string | URL, options: OpenStoreOptions = {}): Promise<ThreadStore> {
  // A malformed policy is refused before anything is opened.
  retentionPolicy(options.retention);
  const registry = options.registry ?? defaultRegistry();
  const adapters = (options.adapters ?? []).map((adapter) =>
    typeof adapter === "function" ? adapter() : adapter,
  );
  const parsed = parseStoreUrl(url);
  const scheme = parsed.protocol.slice(0, -1);
  let opener = adapters.find((adapter) => adapter.schemes.includes(scheme) && adapter.openStore);
  if (!opener && scheme !== "memory") opener = await findStoreAdapter(scheme, parsed);
  const accepted = [...adapters, ...(opener ? [opener] : [])];
  // Every adapter is checked before any of its types is registered: a refused one leaves the registry as it was.
  for (const adapter of accepted)
    assertSpecificationVersion(adapterName(adapter), adapter.specificationVersion);
  for (const adapter of accepted) {
    for (const type of adapter.types) registry.ensure(type);
  }
  const encryption = options.encryption ? { encryption: options.encryption } : {};
  const retention = options.retention ? { retention: options.retention } : {};
  if (!opener) return createMemoryStore({ registry, adapters, ...encryption, ...retention });
  const store = await (opener.openStore as NonNullable<SkeinAdapter["openStore"]>)(parsed, {
    registry,
    adapters,
    ...encryption,
  });
  if (store.specificationVersion !== "v1") {
    // Refused, so closed here: the caller never holds it to close.
    await store.close?.().catch(() => undefined);
    assertSpecificationVersion(`store that ${adapterName(opener)} opened`, store.specificationVersion);
  }
  if (options.encryption && !isEncryptingDriver((store as { driver?: unknown }).driver)) {
    // An adapter that ignores the option would store plaintext the application asked to have encrypted.
    await store.close?.().catch(() => undefined);
    throw new UnsupportedOperationError(
      scheme,
      "encryption at rest",
      `${adapterName(opener)} opened a store that does not encrypt; nothing was written`,
    );
  }
  if (options.retention) {
    const local = store as { useRetention?: (retention: RetentionOptions) => void };
    if (typeof local.useRetention !== "function") {
      await store.close?.().catch(() => undefined);
      throw new UnsupportedOperationError(
        scheme,
        "retention",
        `${adapterName(opener)} opened a store that cannot expire threads; nothing was written`,
      );
    }
    local.useRetention(options.retention);
  }
  return store;
}

/** How errors name an adapter: by its package, which every adapter declares. */
function adapterName(adapter: SkeinAdapter): string {
  return `adapter ${typeof adapter.packageName === "string" ? adapter.packageName : "(no packageName)"}`;
}

/**
 * The adapter registered for a URL scheme, importing skein's own package for it first when it is not (its
 * module registers its schemes when it loads): `AdapterNotInstalledError` names the package to install.
 * @example const redis = await findStoreAdapter("redis"); redis.types; // [redisThreadType]
 */
export async function findStoreAdapter(scheme: string, url?: URL): Promise<SkeinAdapter> {
  const registered = registeredStoreAdapter(scheme);
  if (registered) return registered;
  const packageName = SKEIN_STORE_PACKAGES[scheme];
  if (packageName) await loadStorePackage(packageName, scheme);
  const loaded = registeredStoreAdapter(scheme);
  if (loaded) return loaded;
  if (packageName) {
    throw new SkeinError(`${packageName} did not register "${scheme}:"; is it a matching version?`);
  }
  const known = [...new Set(["memory", ...Object.keys(SKEIN_STORE_PACKAGES), ...registeredStoreSchemes()])];
  throw new InvalidStoreUrlError(
    url ? redactUrl(url) : `${scheme}:`,
    `unknown scheme "${scheme}:"; use ${known.map((name) => `${name}:`).join(", ")}, or pass the adapter that opens it (openStore(url, { adapters }), skein --adapter <package>)`,
  );
}

/** Imports a store package by name; a missing one is an `AdapterNotInstalledError` with the install command. */
export async function loadStorePackage(packageName: string, scheme: string): Promise<void> {
  try {
    await import(packageName);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(packageName)) {
      throw new AdapterNotInstalledError(packageName, scheme, { cause: error });
    }
    throw error;
  }
}

function parseStoreUrl(url: string | URL): URL {
  if (url instanceof URL) return url;
  if (typeof url !== "string" || url.trim() === "") {
    throw new InvalidStoreUrlError(
      String(url),
      "expected a URL such as memory:, file:./.skein or redis://localhost:6379",
    );
  }
  // A typo such as `file:` must not open (and litter) the working directory: `file:.` says "here".
  if (/^file:(\/\/)?([?#].*)?$/i.test(url)) {
    throw new InvalidStoreUrlError(
      redactUrlText(url),
      "it names no directory (write file:./path, or file:. for the working directory)",
    );
  }
  try {
    // WHATWG URLs make `file:./x` into `file:///x`; a relative path is relative to the working directory.
    const relative = /^file:(?!\/\/)([^?#]*)(.*)$/.exec(url);
    if (relative) return new URL(`${pathToFileURL(resolve(relative[1] as string)).href}${relative[2]}`);
    return new URL(url);
  } catch {
    // Node's ERR_INVALID_URL keeps the input, password and all, so it is not kept as the cause.
    throw new InvalidStoreUrlError(
      redactUrlText(url),
      "it is not a URL (expected memory:, file:<path>, redis://…)",
    );
  }
}

import { assertSpecificationVersion } from "../specification-version.js";
import type { SkeinAdapter } from "./store.js";

/**
 * The packages of skein's own stores, by URL scheme: `openStore` imports one when a URL asks for its
 * scheme and nothing has registered it yet, and names it in the install hint when it is missing. Any
 * other adapter registers its schemes itself (`registerStoreAdapter`, which `defineLogStore` calls).
 */
export const SKEIN_STORE_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  file: "@skein/adapter-fs",
  redis: "@skein/adapter-redis",
  rediss: "@skein/adapter-redis",
  postgres: "@skein/adapter-postgres",
  postgresql: "@skein/adapter-postgres",
});

const SCHEMES_KEY = Symbol.for("skein.storeSchemes");

/** One table per process, on `globalThis`, so two installed copies of thread-core share it (as the registry). */
function schemeTable(): Map<string, () => SkeinAdapter> {
  const holder = globalThis as { [SCHEMES_KEY]?: Map<string, () => SkeinAdapter> };
  holder[SCHEMES_KEY] ??= new Map();
  return holder[SCHEMES_KEY];
}

/**
 * Makes `openStore(url)` (and the CLI) open the adapter's schemes without it being passed in. An adapter
 * package calls it once, when it is imported; a later registration of a scheme replaces the earlier one.
 * @example registerStoreAdapter(postgresAdapter);
 */
export function registerStoreAdapter(factory: () => SkeinAdapter): void {
  const adapter = factory();
  assertSpecificationVersion(`adapter ${adapter.packageName}`, adapter.specificationVersion);
  for (const scheme of adapter.schemes) schemeTable().set(scheme, factory);
}

/** The adapter registered for a scheme, made fresh, or undefined. */
export function registeredStoreAdapter(scheme: string): SkeinAdapter | undefined {
  return schemeTable().get(scheme)?.();
}

/** Every registered scheme, for messages. */
export function registeredStoreSchemes(): string[] {
  return [...schemeTable().keys()].sort();
}

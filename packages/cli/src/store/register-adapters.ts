import {
  AdapterNotInstalledError,
  type Registry,
  type SkeinAdapter,
  SkeinError,
  STORE_SCHEMES,
} from "@skein/thread-core";

/**
 * Loads every adapter package behind a store URL scheme (fs, redis) and registers its thread types, so
 * `skein schema` describes them without opening a store.
 */
export async function registerStoreAdapters(registry: Registry): Promise<void> {
  const seen = new Set<string>();
  for (const [scheme, known] of Object.entries(STORE_SCHEMES)) {
    if (seen.has(known.packageName)) continue;
    seen.add(known.packageName);
    let module: Record<string, unknown>;
    try {
      module = await known.load();
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND") {
        throw new AdapterNotInstalledError(known.packageName, scheme, { cause: error });
      }
      throw error;
    }
    const factory = module[known.factory];
    if (typeof factory !== "function") {
      throw new SkeinError(
        `${known.packageName} does not export ${known.factory}(); is it a matching version?`,
        {
          source: "cli",
        },
      );
    }
    for (const type of (factory as () => SkeinAdapter)().types) registry.ensure(type);
  }
}

import { AdapterNotInstalledError, type ThreadTypeRegistry } from "@skein/thread-core";
import { findStoreAdapter, SKEIN_STORE_PACKAGES } from "@skein/thread-core/driver";

/**
 * Registers the thread types of every installed store package behind a URL scheme (fs, redis, postgres, and
 * those `--adapter` loaded), so `skein schema` describes them without opening a store. skein's own store
 * packages that are not installed are left out.
 */
export async function registerStoreAdapters(registry: ThreadTypeRegistry): Promise<void> {
  const seen = new Set<string>();
  for (const scheme of Object.keys(SKEIN_STORE_PACKAGES)) {
    try {
      const adapter = await findStoreAdapter(scheme);
      if (seen.has(adapter.packageName)) continue;
      seen.add(adapter.packageName);
      for (const type of adapter.types) registry.ensure(type);
    } catch (error) {
      if (!AdapterNotInstalledError.isInstance(error)) throw error;
    }
  }
}

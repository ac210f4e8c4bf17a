import { registerStoreAdapter, type SkeinAdapter } from "@skein/thread-core";
import type { RedisLogDriver } from "./redis-log-driver.js";
import { type RedisStoreOptions, redisStore } from "./redis-store.js";
import { redisThreadType } from "./redis-thread-type.js";

export type RedisAdapterOptions = Omit<RedisStoreOptions, "url" | "registry" | "adapters">;

/**
 * The adapter behind `redis://` and `rediss://` store URLs. `openStore` checks that Redis answers.
 * @example const store = await openStore("redis://127.0.0.1:7000?cluster=true", { adapters: [redisAdapter()] });
 */
export function redisAdapter(options: RedisAdapterOptions = {}): SkeinAdapter {
  return {
    specificationVersion: "v1",
    packageName: "@skein/adapter-redis",
    schemes: ["redis", "rediss"],
    types: [redisThreadType],
    async openStore(url, context) {
      const store = redisStore({ ...options, url, registry: context.registry, adapters: context.adapters });
      try {
        await (store.driver as RedisLogDriver).ping();
      } catch (error) {
        await store.close();
        throw error;
      }
      return store;
    },
  };
}

// Importing the package is enough for openStore (and the CLI) to open its URLs.
registerStoreAdapter(redisAdapter);

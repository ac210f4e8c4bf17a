import type { SkeinAdapter } from "@skein/thread-core/driver";
import { type RedisStoreOptions, redisAdapterOf } from "./redis-store.js";

/** Options of `redisAdapter`: those of `redisStore` except what the URL and `openStore` give. */
export type RedisAdapterOptions = Omit<RedisStoreOptions, "url" | "registry" | "adapters">;

/**
 * The adapter behind `redis://` and `rediss://` store URLs. `openStore` checks that Redis answers. Importing
 * the package registers it, so `openStore` (and the CLI) open such URLs without it being passed in.
 * @example const store = await openStore("redis://127.0.0.1:7000?cluster=true", { adapters: [redisAdapter()] });
 */
export function redisAdapter(options: RedisAdapterOptions = {}): SkeinAdapter {
  return redisAdapterOf(options);
}

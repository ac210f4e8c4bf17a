export { KeyLayout } from "./key-layout.js";
export { type RedisAdapterOptions, redisAdapter } from "./redis-adapter.js";
export {
  type RedisAnyClient,
  type RedisClusterClient,
  RedisConnection,
  type RedisConnectionOptions,
  type RedisSingleClient,
} from "./redis-connection.js";
export { RedisLogDriver, type RedisLogDriverOptions } from "./redis-log-driver.js";
export { type RedisStoreOptions, redisStore, redisThreadType } from "./redis-store.js";
export { parseRedisUrl, type RedisUrlSettings } from "./redis-url.js";

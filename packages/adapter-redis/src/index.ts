export { type RedisAdapterOptions, redisAdapter } from "./redis-adapter.js";
export type { RedisAnyClient, RedisClusterClient, RedisSingleClient } from "./redis-connection.js";
export { type RedisStoreOptions, redisStore, redisThreadType } from "./redis-store.js";

import { defineLocalThreadType } from "@skein/thread-core";

/** `redis`: a local thread whose log lives in a Redis store; its JSON refers to it by id. */
export const redisThreadType = defineLocalThreadType("redis", "@skein/adapter-redis", "redis:");

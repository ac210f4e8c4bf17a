// Gives the Redis tests a redis-server: REDIS_URL when set (the root `npm test` sets it), else Debian's
// redis-server on a free loopback port, without persistence, stopped when the run ends.
import type { TestProject } from "vitest/node";
import { startRedis } from "../../../scripts/redis-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis the tests use. */
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}

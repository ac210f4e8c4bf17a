import type { TestProject } from "vitest/node";
import { startRedis } from "../../../scripts/redis-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** REDIS_URL, or a redis-server started for this run. */
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}

// Gives the tests a Redis: REDIS_URL when set (the root `npm test` sets it), else a redis-server of our own
// on a free loopback port, without persistence, stopped when the run ends.
import type { TestProject } from "vitest/node";
import { startRedis } from "../../../scripts/redis-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** A Redis URL for the tests, or a sentence saying why there is none. */
    redis: { url: string } | { unavailable: string };
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  try {
    const redis = await startRedis();
    project.provide("redis", { url: redis.url });
    return () => redis.stop();
  } catch (error) {
    project.provide("redis", { unavailable: (error as Error).message });
    return undefined;
  }
}

import type { TestProject } from "vitest/node";
import { startRedis } from "../../../scripts/redis-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis the task-store tests use: REDIS_URL, or a redis-server started here; "" if none. */
    redisUrl: string;
  }
}

/**
 * The root `npm test` sets REDIS_URL. Run alone (`npx vitest run`), the package starts Debian's
 * redis-server on a free loopback port, without persistence, and stops it afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // No redis-server: the Redis cases are skipped, saying what they need.
  const redis = await startRedis().catch(() => undefined);
  project.provide("redisUrl", redis?.url ?? "");
  return async () => {
    await redis?.stop();
  };
}

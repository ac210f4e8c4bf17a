import type { TestProject } from "vitest/node";
import { assertRedisInstalled, startRedis, startRedisCluster } from "../../../scripts/redis-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** A single redis-server: REDIS_URL, or one started for this run. */
    redisUrl: string;
    /** A 3-master Redis Cluster, `redis://host:port?cluster=true`: REDIS_CLUSTER_URL, or one started for this run. */
    redisClusterUrl: string;
  }
}

/** Starts what the tests need unless the environment points at servers already running. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The outage test always starts its own server, so redis-server is needed even with both URLs set.
  assertRedisInstalled();
  const [single, cluster] = await Promise.all([
    startRedis(),
    process.env.REDIS_CLUSTER_URL ? undefined : startRedisCluster({ masters: 3 }),
  ]);
  project.provide("redisUrl", single.url);
  project.provide("redisClusterUrl", process.env.REDIS_CLUSTER_URL ?? (cluster?.url as string));
  return async () => {
    await Promise.all([single.stop(), cluster?.stop()]);
  };
}

import { afterAll } from "vitest";
import { startRedisCluster } from "../../../../scripts/redis-server.mjs";
import type { SharedStore } from "./backends.js";
import { redisStoreUrl, uniquePrefix } from "./test-redis.js";

/**
 * A 3-master Redis Cluster of this test file's own, started by the first test that asks for a store on it
 * (so tests that do not use it do not wait for it) and stopped after the file.
 */
export function useRedisCluster(): {
  /** A store under a fresh prefix on the Cluster; its keys go when the Cluster stops. */
  store(name: string): Promise<SharedStore>;
  /** The URL of each node, for scans that must read every node's keys. */
  nodes(): string[];
} {
  let started: ReturnType<typeof startRedisCluster> | undefined;
  let nodes: string[] = [];
  afterAll(async () => {
    await (await started)?.stop();
  });
  return {
    async store(name) {
      started ??= startRedisCluster({ masters: 3 });
      const cluster = await started;
      nodes = cluster.nodes.map((node: { port: number }) => `redis://127.0.0.1:${node.port}`);
      return { url: redisStoreUrl(cluster.url, uniquePrefix(name)), cleanup: async () => {} };
    },
    nodes: () => nodes,
  };
}

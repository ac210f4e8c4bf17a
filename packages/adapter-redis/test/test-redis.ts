import { randomBytes } from "node:crypto";
import { createClient, createCluster } from "redis";
import { inject } from "vitest";
import { parseRedisUrl } from "../src/redis-url.js";

/** A key prefix no other test (or parallel test file) uses. */
export function uniquePrefix(name = "t"): string {
  return `skein-test:${name}:${randomBytes(6).toString("hex")}`;
}

export function singleUrl(): string {
  return inject("redisUrl");
}

export function clusterUrl(): string {
  return inject("redisClusterUrl");
}

/** A connected client of the test Redis Cluster. */
export async function connectCluster() {
  const settings = parseRedisUrl(clusterUrl());
  const cluster = createCluster({
    rootNodes: [{ url: settings.url.href }, ...settings.nodes.map((node) => ({ url: node.href }))],
  });
  await cluster.connect();
  return cluster;
}

/** A connected client of the single test server. */
export async function connectSingle(url = singleUrl()) {
  const client = createClient({ url: parseRedisUrl(url).url.href });
  await client.connect();
  return client;
}

/** Every key under `prefix`, on every node. */
export async function keysWithPrefix(url: string, prefix: string): Promise<string[]> {
  return withNodes(url, async (client) => {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) keys.push(...batch);
    return keys;
  });
}

/** Deletes every key under `prefix`, on every node: a test's cleanup. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  await withNodes(url, async (client) => {
    for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
      for (const key of batch) await client.unlink(key);
    }
    return [];
  });
}

type NodeClient = Awaited<ReturnType<typeof connectSingle>>;

async function withNodes(url: string, work: (client: NodeClient) => Promise<string[]>): Promise<string[]> {
  const settings = parseRedisUrl(url);
  if (!settings.cluster) {
    const client = await connectSingle(url);
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  }
  const cluster = await connectCluster();
  try {
    const found = await Promise.all(
      cluster.masters.map(async (master) =>
        work((await cluster.nodeClient(master)) as unknown as NodeClient),
      ),
    );
    return found.flat();
  } finally {
    await cluster.close();
  }
}

// Clients of the test servers, and key cleanup on every node of a Cluster; the prefix and the per-node
// scans are @skein/test-support's.
import { deleteKeysUnder, keysUnder, type RedisNodeClient } from "@skein/test-support/test-redis";
import { createClient, createCluster } from "redis";
import { inject } from "vitest";
import { parseRedisUrl } from "../src/redis-url.js";

export { uniquePrefix } from "@skein/test-support/test-redis";

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
  return (await eachNode(url, (client) => keysUnder(client, prefix))).flat();
}

/**
 * Every key under `prefix` on every node with its value as text: read by type (a `DUMP` may compress a long
 * string and hide it from a byte search) and its `DUMP` bytes besides, so nothing a key holds is missed.
 */
export async function keyContents(url: string, prefix: string): Promise<Array<[string, string]>> {
  const read = async (client: RedisNodeClient) => {
    const node = client as unknown as Awaited<ReturnType<typeof connectSingle>>;
    const contents: Array<[string, string]> = [];
    for (const key of await keysUnder(client, prefix)) {
      const type = await node.type(key);
      const value =
        type === "string"
          ? await node.get(key)
          : type === "hash"
            ? await node.hGetAll(key)
            : type === "list"
              ? await node.lRange(key, 0, -1)
              : type === "set"
                ? await node.sMembers(key)
                : type === "zset"
                  ? await node.zRangeWithScores(key, 0, -1)
                  : type === "stream"
                    ? await node.xRange(key, "-", "+")
                    : `unknown type ${type}`;
      const dumped = await node.sendCommand(["DUMP", key]);
      contents.push([key, `${JSON.stringify(value)}\n${String(dumped)}`]);
    }
    return contents;
  };
  return (await eachNode(url, read)).flat();
}

/** Deletes every key under `prefix`, on every node: a test's cleanup. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  await eachNode(url, (client) => deleteKeysUnder(client, prefix));
}

/** `work` on the server at `url`, or on every master of the test Cluster. */
async function eachNode<Result>(
  url: string,
  work: (client: RedisNodeClient) => Promise<Result>,
): Promise<Result[]> {
  if (!parseRedisUrl(url).cluster) {
    const client = await connectSingle(url);
    try {
      return [await work(client)];
    } finally {
      await client.close();
    }
  }
  const cluster = await connectCluster();
  try {
    return await Promise.all(cluster.masters.map(async (master) => work(await cluster.nodeClient(master))));
  } finally {
    await cluster.close();
  }
}

/**
 * Every key under `prefix` on the single test server with its value as JSON text, read by type (GET, HGETALL,
 * LRANGE, SMEMBERS, ZRANGE, XRANGE) rather than DUMP, whose RDB encoding may compress a long string and so
 * hide its text from a scan.
 */
export async function keyTexts(prefix: string): Promise<Array<{ key: string; text: string }>> {
  const client = await connectSingle();
  try {
    const texts: Array<{ key: string; text: string }> = [];
    for (const key of await keysWithPrefix(singleUrl(), prefix)) {
      const type = await client.type(key);
      const value =
        type === "string"
          ? await client.get(key)
          : type === "hash"
            ? await client.hGetAll(key)
            : type === "list"
              ? await client.lRange(key, 0, -1)
              : type === "set"
                ? await client.sMembers(key)
                : type === "zset"
                  ? await client.zRangeWithScores(key, 0, -1)
                  : type === "stream"
                    ? await client.xRange(key, "-", "+")
                    : `unknown type ${type}`;
      texts.push({ key, text: JSON.stringify([key, value]) });
    }
    return texts;
  } finally {
    await client.quit();
  }
}

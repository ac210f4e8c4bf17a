import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll } from "vitest";
import { type RedisServer, startRedisServer } from "./redis-servers.js";

/**
 * The Redis a test file uses when it does not need to stop or freeze it: `REDIS_URL` (which the root
 * `npm test` sets to its shared server), else a redis-server this file starts and stops.
 */
export function useRedis(): { url(): string } {
  let own: RedisServer | undefined;
  let url = process.env.REDIS_URL;
  beforeAll(async () => {
    if (url) return;
    own = await startRedisServer();
    url = own.url;
  });
  afterAll(async () => {
    await own?.dispose();
  });
  return {
    url: () => {
      if (!url) throw new Error("Redis is not started yet: call url() inside a test");
      return url;
    },
  };
}

/** A key prefix no other test or run uses, so tests on a shared server never see each other's keys. */
export function uniquePrefix(name: string): string {
  return `skein-faults-${name}-${randomBytes(5).toString("hex")}`;
}

/** The store URL for `prefix` on the server at `url`, with extra parameters (`timeout`). */
export function redisStoreUrl(url: string, prefix: string, parameters: Record<string, string> = {}): string {
  const parsed = new URL(url);
  parsed.searchParams.set("prefix", prefix);
  for (const [name, value] of Object.entries(parameters)) parsed.searchParams.set(name, value);
  return parsed.href;
}

/** A node-redis client of the server at `url` (skein's query parameters dropped), not yet connected. */
function plainClient(url: string) {
  const server = new URL(url);
  server.search = "";
  const client = createClient({ url: server.href });
  client.on("error", () => {});
  return client;
}

type PlainClient = ReturnType<typeof plainClient>;

/** Runs `work` with a plain client of the server at `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: PlainClient) => Promise<T>): Promise<T> {
  const client = plainClient(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    client.destroy();
  }
}

/** Every key on the server, as text: to check that a store wrote only under its prefix. */
export function allKeys(url: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: "*", COUNT: 1000 })) keys.push(...batch);
    return keys;
  });
}

/** Deletes every key under `prefix`: a test's cleanup on a shared server. */
export function deleteKeys(url: string, prefix: string): Promise<void> {
  return withClient(url, async (client) => {
    for await (const batch of client.scanIterator({ MATCH: `${escapePattern(prefix)}:*`, COUNT: 1000 })) {
      if (batch.length > 0) await client.unlink(batch);
    }
  });
}

/** `prefix` as a literal in a SCAN MATCH pattern. */
export function escapePattern(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);
}

// What Redis tests share: a key prefix of their own on a shared server, and its cleanup.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import type {} from "./global-setup.js";

/** What these helpers need of a connected node-redis client of one node (a Cluster's node clients included). */
export interface RedisNodeClient {
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
  unlink(key: string): Promise<number>;
}

/** The single test server, from a global setup with `redis: true`. */
export function redisUrl(): string {
  return inject("redisUrl");
}

/** A key prefix no other test (or parallel test file, or run on the same server) uses. */
export function uniquePrefix(name = "t"): string {
  return `skein-test:${name}:${randomBytes(6).toString("hex")}`;
}

/** `text` as a literal in a SCAN MATCH pattern. */
export function escapePattern(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);
}

/** Every key under `prefix` on the node `client` talks to. */
export async function keysUnder(client: RedisNodeClient, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${escapePattern(prefix)}:*`, COUNT: 1000 }))
    keys.push(...batch);
  return keys;
}

/** Deletes every key under `prefix` on the node `client` talks to: a test's cleanup on a shared server. */
export async function deleteKeysUnder(client: RedisNodeClient, prefix: string): Promise<void> {
  for await (const batch of client.scanIterator({ MATCH: `${escapePattern(prefix)}:*`, COUNT: 1000 })) {
    // One key a command: a Cluster node refuses a multi-key UNLINK across hash slots (CROSSSLOT).
    for (const key of batch) await client.unlink(key);
  }
}

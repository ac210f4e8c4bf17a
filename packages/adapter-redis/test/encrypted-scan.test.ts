import { PLANTED_MARKER, plantMarkers, testEncryption } from "@skein/test-support/encryption-markers";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { connectSingle, deleteKeys, keysWithPrefix, singleUrl, uniquePrefix } from "./redis-nodes.js";

const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(singleUrl(), prefix);
});

/**
 * The keys under `prefix` whose value holds the marker, read by type (GET, HGETALL, LRANGE, SMEMBERS, ZRANGE,
 * XRANGE) rather than DUMP, whose RDB encoding may compress a long string and so hide plaintext from a scan.
 */
async function keysWithMarker(prefix: string): Promise<string[]> {
  const client = await connectSingle();
  try {
    const found: string[] = [];
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
      if (JSON.stringify([key, value]).includes(PLANTED_MARKER)) found.push(key);
    }
    return found;
  } finally {
    await client.quit();
  }
}

describe("an encrypted redis store", () => {
  it("keeps no planted plaintext in any key's value (SCAN of its prefix, every key read by type)", async () => {
    const prefix = uniquePrefix("encrypted-scan");
    prefixes.push(prefix);
    const store = redisStore({ url: singleUrl(), prefix, encryption: testEncryption() });
    await plantMarkers(store);
    await store.close();
    expect(await keysWithMarker(prefix)).toEqual([]);
  });

  it("(the scan sees plaintext: the same threads in a store without encryption leave the marker in keys)", async () => {
    const prefix = uniquePrefix("plain-scan");
    prefixes.push(prefix);
    const store = redisStore({ url: singleUrl(), prefix });
    await plantMarkers(store);
    await store.close();
    expect((await keysWithMarker(prefix)).length).toBeGreaterThan(0);
  });
});

import { PLANTED_MARKER, plantMarkers, testEncryption } from "@skein/test-support/encryption-markers";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, keyTexts, singleUrl, uniquePrefix } from "./redis-nodes.js";

const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(singleUrl(), prefix);
});

/** The keys under `prefix` whose value holds the marker. */
async function keysWithMarker(prefix: string): Promise<string[]> {
  return (await keyTexts(prefix)).filter(({ text }) => text.includes(PLANTED_MARKER)).map(({ key }) => key);
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

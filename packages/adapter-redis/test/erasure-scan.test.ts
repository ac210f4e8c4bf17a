import {
  PLANTED_MARKER,
  plantMarkers,
  plantStreamingReply,
  testEncryption,
} from "@skein/test-support/encryption-markers";
import type { ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, deleteKeys, keyContents, singleUrl, uniquePrefix } from "./redis-nodes.js";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** The keys under `prefix`, on every node, whose name, value or DUMP holds `text`. */
async function keysHolding(url: string, prefix: string, text: string): Promise<string[]> {
  return (await keyContents(url, prefix))
    .filter(([key, value]) => key.includes(text) || value.includes(text))
    .map(([key]) => key);
}

async function plantAndErase(store: ThreadStore, url: string, prefix: string, encrypted: boolean) {
  await plantMarkers(store);
  await plantMarkers(store.scope("tenant-a"));
  await plantStreamingReply(store);
  const kept = await store.create({ id: "kept", owner: "owner-2", title: "someone else's" });
  await kept.append({ id: "k1", role: "user", text: "stays" });
  if (!encrypted) expect((await keysHolding(url, prefix, PLANTED_MARKER)).length).toBeGreaterThan(0);
  expect((await store.erase({ owner: "owner-1" })).threads).toBe(5);
  expect((await store.list()).items.map((item) => item.id)).toEqual(["kept"]);
}

describe("store.erase on a redis store", () => {
  for (const [name, url, cluster] of [
    ["single", singleUrl, false],
    ["cluster", clusterUrl, true],
  ] as const) {
    for (const encrypted of [false, true]) {
      it(`leaves no key or value of the owner's data (${name}${encrypted ? ", encrypted" : ""})`, async () => {
        const prefix = uniquePrefix(`erasure-${name}`);
        cleanups.push(() => deleteKeys(url(), prefix));
        const store = redisStore({
          url: url(),
          ...(cluster ? { cluster: true } : {}),
          prefix,
          ...(encrypted ? { encryption: testEncryption() } : {}),
        });
        try {
          await plantAndErase(store, url(), prefix, encrypted);
        } finally {
          await store.close();
        }
        expect(await keysHolding(url(), prefix, PLANTED_MARKER)).toEqual([]);
        expect(await keysHolding(url(), prefix, "owner-1")).toEqual([]);
      });
    }
  }
});

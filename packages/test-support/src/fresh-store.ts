// The stores the bridges' tests run on: a fresh, empty one for each use, so tests cannot see each other's threads.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type ThreadStore } from "@skein/thread-core";
import { newRandomId } from "@skein/thread-core/driver";
import { inject } from "vitest";
// For the `redisUrl` that `inject` reads: the global setup declares what it provides.
import type {} from "./global-setup.js";

export type StoreKind = "memory" | "fs" | "redis";

/** Every kind; "redis" needs a global setup with `redis: true`, and @skein/adapter-redis installed. */
export const STORE_KINDS: readonly StoreKind[] = ["memory", "fs", "redis"];

/** The kinds that need no server: for packages whose tests start none. */
export const SERVERLESS_STORE_KINDS = ["memory", "fs"] as const satisfies readonly StoreKind[];

export interface TestStore {
  store: ThreadStore;
  /** The URL the store was opened from, for another process to open; for "redis", the server's (the store is a scope of it). */
  url: string;
  /** Closes the store and removes what it wrote: the temporary directory of an "fs" store. */
  dispose(): Promise<void>;
}

/**
 * A fresh store of the kind: a new memory store, a new temporary directory, or a new scope of the test Redis.
 * @example const { store, dispose } = await freshStore("fs");
 */
export async function freshStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "memory") {
    const store = await openStore("memory:");
    return { store, url: "memory:", dispose: () => store.close() };
  }
  if (kind === "fs") {
    const directory = await mkdtemp(join(tmpdir(), "skein-store-"));
    const url = `file://${directory}`;
    const store = await openStore(url);
    return {
      store,
      url,
      dispose: async () => {
        await store.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  }
  const url = inject("redisUrl");
  const store = await openStore(url);
  return { store: store.scope(newRandomId("test")), url, dispose: () => store.close() };
}

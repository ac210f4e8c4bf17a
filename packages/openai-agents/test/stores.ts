// The stores the saver's tests run on: a fresh, empty one for each use, so tests cannot see each other's threads.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newRandomId, openStore, type ThreadStore } from "@skein/thread-core";
import { inject } from "vitest";

export interface TestStore {
  store: ThreadStore;
  dispose(): Promise<void>;
}

export type StoreKind = "memory" | "fs" | "redis";

export const STORE_KINDS: readonly StoreKind[] = ["memory", "fs", "redis"];

/** A fresh store of the kind: a new memory store, a new temporary directory, or a new scope of the test Redis. */
export async function freshStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "memory") {
    const store = await openStore("memory:");
    return { store, dispose: () => store.close() };
  }
  if (kind === "fs") {
    const directory = await mkdtemp(join(tmpdir(), "skein-agents-"));
    const store = await openStore(`file://${directory}`);
    return {
      store,
      dispose: async () => {
        await store.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  }
  const store = await openStore(inject("redisUrl"));
  return { store: store.scope(newRandomId("test")), dispose: () => store.close() };
}

// The stores the chat tests run on: a fresh, empty one for each test.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type ThreadStore } from "@skein/thread-core";

export interface TestStore {
  store: ThreadStore;
  /** The store's URL, for another process to open. */
  url: string;
  dispose(): Promise<void>;
}

export const STORE_KINDS = ["memory", "fs"] as const;

export async function freshStore(kind: (typeof STORE_KINDS)[number]): Promise<TestStore> {
  if (kind === "memory") {
    const store = await openStore("memory:");
    return { store, url: "memory:", dispose: () => store.close() };
  }
  const directory = await mkdtemp(join(tmpdir(), "skein-ai-sdk-"));
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

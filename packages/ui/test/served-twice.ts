import { openStore, type ThreadStore } from "@skein/thread-core";
import { startUi, type UiServer } from "../src/index.js";

/** One memory store served twice, read-only and with `--write`, so a test can compare what each allows. */
export interface ServedTwice {
  store: ThreadStore;
  readOnly: UiServer;
  writable: UiServer;
  close(): Promise<void>;
}

/** Opens a memory store, lets `fill` write into it, and serves it read-only and writable. */
export async function servedTwice(fill: (store: ThreadStore) => Promise<void>): Promise<ServedTwice> {
  const store = await openStore("memory:");
  await fill(store);
  const readOnly = await startUi({ store });
  const writable = await startUi({ store, write: true });
  return {
    store,
    readOnly,
    writable,
    close: async () => {
      await readOnly.close();
      await writable.close();
      await store.close();
    },
  };
}

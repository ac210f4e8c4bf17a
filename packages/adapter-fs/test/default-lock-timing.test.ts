import { pathToFileURL } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { createRegistry, openStore } from "@skein/thread-core";
import type { LocalStore } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";

describe("lock timing by default", () => {
  it("waits 10 s for a lock (lockTimeoutMs) and takes a stale one over after 5 s (staleLockMs), as documented", async () => {
    const documented = { timeoutMs: 10_000, staleMs: 5_000 };
    const directory = await temporaryDirectory();
    // Every way a store is opened without those options: the driver, fsStore, and a file: URL.
    const stores = [
      fsStore({ directory }),
      (await openStore(pathToFileURL(directory).href, { registry: createRegistry() })) as LocalStore,
    ];
    for (const store of stores) {
      expect((store.driver as FsLogDriver).locks.settings).toEqual(documented);
      await store.close();
    }
    expect(new FsLogDriver({ directory }).locks.settings).toEqual(documented);
    // Given, they are used as given.
    const tuned = fsStore({ directory, lockTimeoutMs: 1_000, staleLockMs: 200 });
    expect((tuned.driver as FsLogDriver).locks.settings).toEqual({ timeoutMs: 1_000, staleMs: 200 });
    await tuned.close();
  });
});

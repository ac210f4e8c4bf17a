import { describe, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { runRekeySuite } from "../testing/rekey-suite.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

/** One memory backend that outlives the stores opened on it (a store's close would close it). */
class KeptMemoryDriver extends MemoryLogDriver {
  override async close(): Promise<void> {}
}

let backend = new KeptMemoryDriver();

runRekeySuite({
  name: "memory",
  openStore: async (encryption) =>
    new LocalStore({
      driver: encryption ? encryptingLogDriver(backend, encryption) : backend,
      registry: createRegistry(),
      url: "memory:",
    }),
  cleanup: async () => {
    backend = new KeptMemoryDriver();
  },
  describe,
  it,
});

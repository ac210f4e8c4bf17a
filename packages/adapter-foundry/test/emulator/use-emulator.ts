import { openStore, type ThreadStore } from "@skein/thread-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { FoundryAdapter, FoundryAdapterOptions } from "../../src/index.js";
import { type FoundryEmulator, startFoundryEmulator } from "./foundry-emulator.js";

export interface EmulatorFixture {
  readonly emulator: FoundryEmulator;
  /** A memory store whose adapters hold a Foundry adapter on the emulator. */
  store(options?: Partial<FoundryAdapterOptions>): Promise<ThreadStore>;
  adapter(options?: Partial<FoundryAdapterOptions>): FoundryAdapter;
}

/** One emulator per test file, its injected faults cleared after each test. */
export function useEmulator(): EmulatorFixture {
  let emulator: FoundryEmulator | undefined;
  beforeAll(async () => {
    emulator = await startFoundryEmulator();
  });
  afterEach(() => emulator?.http.clearFaults());
  afterAll(async () => {
    await emulator?.close();
  });
  const running = () => {
    if (!emulator) throw new Error("the emulator is not running");
    return emulator;
  };
  return {
    get emulator() {
      return running();
    },
    adapter: (options) => running().adapter(options),
    store: (options) => openStore("memory:", { adapters: [running().adapter(options)] }),
  };
}

import { createRegistry } from "../create-registry.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver } from "../local/log-driver.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

/**
 * Tests only: a fresh encrypted store over `driver` each call (nothing remembered from earlier reads or
 * writes), sealing with `keys` under `current`.
 */
export function encryptedStoreOver(
  driver: LogDriver,
  keys: Record<string, Uint8Array>,
  current: string,
): LocalStore {
  return new LocalStore({
    driver: encryptingLogDriver(driver, { keys, current }),
    registry: createRegistry(),
    url: "memory:",
  });
}

import { randomBytes } from "node:crypto";
import { describe, it } from "vitest";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { runLogDriverSuite } from "../testing/log-driver-suite.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";

// The driver contract holds through the decorator: what a store author's driver promises, it still promises.
runLogDriverSuite({
  name: "memory (encrypted)",
  createDriver: () =>
    encryptingLogDriver(new MemoryLogDriver(), { keys: { k: randomBytes(32) }, current: "k" }),
  describe,
  it,
});

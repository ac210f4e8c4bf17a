import { randomBytes } from "node:crypto";
import { openStore } from "@skein/thread-core";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";

// The whole suite on a memory store that encrypts: every promise holds through the encrypting driver.
const encryption = { keys: { "2026-12": randomBytes(32) }, current: "2026-12" };

runConformanceSuite({
  name: "memory (encrypted)",
  createStore: () => openStore("memory:", { encryption }),
  describe,
  it,
});

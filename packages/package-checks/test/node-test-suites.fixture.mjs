// Runs thread-core's store-level suite under node:test, with no vitest in the process: the
// suites take the runner's functions as options. Run by node-test-suites.test.ts as `node --test <this file>`.
import { describe, it } from "node:test";
import { openStore } from "@skein/thread-core";
import { runConformanceSuite } from "@skein/thread-core/testing";

runConformanceSuite({
  name: "memory under node:test",
  createStore: () => openStore("memory:"),
  describe,
  it,
});

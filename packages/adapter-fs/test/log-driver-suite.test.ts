import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { runLogDriverSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { FsLogDriver } from "../src/index.js";

runLogDriverSuite({
  name: "fs",
  createDriver: async () => new FsLogDriver({ directory: await temporaryDirectory() }),
  describe,
  it,
});

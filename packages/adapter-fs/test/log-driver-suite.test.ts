import { runLogDriverSuite } from "@skein/thread-core/driver";
import { describe, it } from "vitest";
import { FsLogDriver } from "../src/index.js";
import { temporaryDirectory } from "./temporary-directory.js";

runLogDriverSuite({
  name: "fs",
  createDriver: async () => new FsLogDriver({ directory: await temporaryDirectory() }),
  describe,
  it,
});

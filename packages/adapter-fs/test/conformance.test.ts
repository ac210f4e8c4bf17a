import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { fsStore } from "../src/index.js";

let directory: string | undefined;

runConformanceSuite({
  name: "fs",
  createStore: async () => {
    directory = await mkdtemp(join(tmpdir(), "skein-fs-conformance-"));
    return fsStore({ directory });
  },
  openSecondStore: async () => fsStore({ directory: directory as string }),
  cleanup: async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  },
  describe,
  it,
});

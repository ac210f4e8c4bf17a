import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEncryption } from "@skein/test-support/encryption-markers";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { fsStore } from "../src/index.js";

// The whole suite on an fs store that encrypts at rest: every promise holds through the encrypting driver.
let directory: string | undefined;
const encryption = testEncryption();

runConformanceSuite({
  name: "fs (encrypted)",
  createStore: async () => {
    directory = await mkdtemp(join(tmpdir(), "skein-fs-encrypted-"));
    return fsStore({ directory, encryption });
  },
  openSecondStore: async () => fsStore({ directory: directory as string, encryption }),
  cleanup: async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  },
  describe,
  it,
});

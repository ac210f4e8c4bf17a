import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runRekeySuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { fsStore } from "../src/index.js";

// Key rotation on a file store: each case opens one directory again and again with the keys it gives.
let directory: string | undefined;
runRekeySuite({
  name: "fs",
  openStore: async (encryption) => {
    directory ??= await mkdtemp(join(tmpdir(), "skein-fs-rekey-"));
    return fsStore({ directory, ...(encryption ? { encryption } : {}) });
  },
  cleanup: async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  },
  describe,
  it,
});

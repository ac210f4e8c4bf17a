import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkOwnerShredding, OwnerKeyVault } from "@skein/test-support/owner-keys";
import { afterEach, describe, it } from "vitest";
import { fsStore } from "../src/index.js";

// Per-owner keys on real files: a shredded owner's threads read as KeyNotFoundError, here and in a new store.
describe("fs store with per-owner keys", () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it("crypto-shreds one owner and keeps the others readable", async () => {
    directory = await mkdtemp(join(tmpdir(), "skein-fs-owner-keys-"));
    const vault = new OwnerKeyVault();
    const store = await fsStore({ directory, encryption: vault.encryption() });
    try {
      await checkOwnerShredding(store, vault, () =>
        fsStore({ directory: directory as string, encryption: vault.encryption() }),
      );
    } finally {
      await store.close();
    }
  });
});

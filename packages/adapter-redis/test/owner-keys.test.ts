import { checkOwnerShredding, OwnerKeyVault } from "@skein/test-support/owner-keys";
import { describe, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

// Per-owner keys on a real Redis: a shredded owner's threads read as KeyNotFoundError, here and in a new store.
describe("redis store with per-owner keys", () => {
  it("crypto-shreds one owner and keeps the others readable", async () => {
    const prefix = uniquePrefix("owner-keys");
    const vault = new OwnerKeyVault();
    const store = await redisStore({ url: singleUrl(), prefix, encryption: vault.encryption() });
    try {
      await checkOwnerShredding(store, vault, () =>
        redisStore({ url: singleUrl(), prefix, encryption: vault.encryption() }),
      );
    } finally {
      await store.close();
      await deleteKeys(singleUrl(), prefix);
    }
  });
});

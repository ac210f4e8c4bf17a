import { checkOwnerShredding, OwnerKeyVault } from "@skein/test-support/owner-keys";
import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import { describe, it } from "vitest";
import { postgresStore } from "../src/index.js";

// Per-owner keys on a real PostgreSQL: a shredded owner's threads read as KeyNotFoundError, here and in a new store.
describe("postgres store with per-owner keys", () => {
  it("crypto-shreds one owner and keeps the others readable", async () => {
    const schema = uniqueSchema("ownerkeys");
    const vault = new OwnerKeyVault();
    const store = await postgresStore({ url: databaseUrl(), schema, encryption: vault.encryption() });
    try {
      await checkOwnerShredding(store, vault, () =>
        postgresStore({ url: databaseUrl(), schema, encryption: vault.encryption() }),
      );
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});

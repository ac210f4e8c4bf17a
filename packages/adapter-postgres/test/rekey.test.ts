import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import { runRekeySuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { postgresStore } from "../src/index.js";

// Key rotation on PostgreSQL: each case opens one schema again and again with the keys it gives.
let schema = uniqueSchema("rekey");
runRekeySuite({
  name: "postgres",
  openStore: async (encryption) =>
    postgresStore({ url: databaseUrl(), schema, ...(encryption ? { encryption } : {}) }),
  cleanup: async () => {
    await dropSchema(schema);
    schema = uniqueSchema("rekey");
  },
  describe,
  it,
});

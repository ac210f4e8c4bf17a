import { testEncryption } from "@skein/test-support/encryption-markers";
import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { postgresStore } from "../src/index.js";

// The whole suite on a postgres store that encrypts at rest, one schema per case.
let schema = "";
const encryption = testEncryption();
runConformanceSuite({
  name: "postgres (encrypted)",
  createStore: async () => {
    schema = uniqueSchema("encrypted");
    return postgresStore({ url: databaseUrl(), schema, encryption });
  },
  openSecondStore: async () => postgresStore({ url: databaseUrl(), schema, encryption }),
  cleanup: () => dropSchema(schema),
  describe,
  it,
});

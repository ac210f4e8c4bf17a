import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { postgresStore } from "../src/index.js";

let schema = "";
runConformanceSuite({
  name: "postgres",
  createStore: async () => {
    schema = uniqueSchema("conformance");
    return postgresStore({ url: databaseUrl(), schema });
  },
  // Another pool on the same schema.
  openSecondStore: async () => postgresStore({ url: databaseUrl(), schema }),
  cleanup: () => dropSchema(schema),
  describe,
  it,
});

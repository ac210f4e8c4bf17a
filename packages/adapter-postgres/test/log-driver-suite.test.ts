import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import { runLogDriverSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { postgresStore } from "../src/index.js";

let schema = "";
runLogDriverSuite({
  name: "postgres",
  createDriver: () => {
    schema = uniqueSchema("driver");
    return postgresStore({ url: databaseUrl(), schema }).driver;
  },
  cleanup: () => dropSchema(schema),
  describe,
  it,
});

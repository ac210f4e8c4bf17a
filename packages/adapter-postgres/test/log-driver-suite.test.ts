import { runLogDriverSuite } from "@skein/thread-core/driver";
import { describe, it } from "vitest";
import { postgresStore } from "../src/index.js";
import { databaseUrl, dropSchema, uniqueSchema } from "./test-postgres.js";

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

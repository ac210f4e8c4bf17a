export { UnsupportedSchemaVersionError } from "./errors.js";
export { PostgresLogDriver } from "./postgres-log-driver.js";
export {
  type PostgresStoreOptions,
  postgresAdapter,
  postgresStore,
  postgresThreadType,
} from "./postgres-store.js";
export { SCHEMA_VERSION } from "./schema.js";

import { InvalidStoreUrlError } from "@skein/thread-core";
import { defineLogStore, redactUrl, redactUrlText } from "@skein/thread-core/driver";
import pg from "pg";
import { SOURCE } from "./errors.js";
import { PostgresConnection } from "./postgres-connection.js";
import { PostgresLogDriver } from "./postgres-log-driver.js";
import { tableNames } from "./table-names.js";

/** Options of `postgresStore`: a pool or connection string, and the schema to keep threads in. */
export interface PostgresStoreOptions {
  /**
   * A node-postgres `Pool` your application already holds. The store uses it as it is, and `close()` leaves
   * it open.
   * @default a pool the store creates from `url`, and ends on `close()`
   */
  pool?: pg.Pool;
  /**
   * `postgres[ql]://user:password@host:port/database`, optionally with `?schema=` and `tablePrefix=` (and
   * node-postgres's own parameters, such as `sslmode=`); options given here win over the query.
   * @default "postgres://127.0.0.1:5432/postgres"
   */
  url?: string | URL;
  /** The schema that holds the tables, created if missing. @default "public" */
  schema?: string;
  /** Prepended to every table name (`skein_records`, `skein_messages`, …). @default "skein_" */
  tablePrefix?: string;
  /** Connections of a pool the store creates. @default 10 */
  maxConnections?: number;
}

const DEFAULT_URL = "postgres://127.0.0.1:5432/postgres";
/** Query parameters this package reads; the rest of the URL goes to node-postgres. */
const OWN_PARAMETERS = ["schema", "tablePrefix"];

// Each name gets its own declaration (not one destructuring) so each carries its own doc comment.
const postgres = defineLogStore<PostgresStoreOptions>({
  type: "postgres",
  packageName: "@skein/adapter-postgres",
  schemes: ["postgres", "postgresql"],
  createDriver(options) {
    const url = storeUrl(options);
    const query = url.searchParams;
    const names = tableNames(
      options.schema ?? query.get("schema") ?? "public",
      options.tablePrefix ?? query.get("tablePrefix") ?? "skein_",
    );
    for (const name of OWN_PARAMETERS) query.delete(name);
    const pool =
      options.pool ?? new pg.Pool({ connectionString: url.href, max: options.maxConnections ?? 10 });
    // An idle pooled client that loses its server emits "error" on the pool: the next query reports it.
    if (!options.pool) pool.on("error", () => undefined);
    const connection = new PostgresConnection({
      pool,
      ownsPool: !options.pool,
      names,
      displayUrl: describeStore(options),
    });
    return new PostgresLogDriver(connection);
  },
  optionsFromUrl: (url, options) => ({ ...options, url }),
  describe: describeStore,
  verify: (driver) => (driver as PostgresLogDriver).ping(),
});

/**
 * `postgres`: local threads in PostgreSQL, the thread type of this package's stores.
 * @example const store = postgresStore({ pool, schema: "agents" });
 */
export const postgresThreadType = postgres.threadType;
/** Makes a store of local threads in PostgreSQL (`jsonb`), over your pool or a URL. */
export const postgresStore = postgres.store;
/**
 * Opens `postgres://` and `postgresql://` URLs for `openStore` and the CLI (importing the package registers them).
 */
export const postgresAdapter = postgres.adapter;

function storeUrl(options: PostgresStoreOptions): URL {
  const text = String(options.url ?? DEFAULT_URL);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Node's ERR_INVALID_URL keeps the input, password and all, so it is not kept as the cause.
    throw new InvalidStoreUrlError(redactUrlText(text), "it is not a URL", { source: SOURCE });
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new InvalidStoreUrlError(redactUrl(url), "expected a postgres:// or postgresql:// URL", {
      source: SOURCE,
    });
  }
  return url;
}

function describeStore(options: PostgresStoreOptions): string {
  if (options.pool && options.url === undefined) return "postgres://(pool)";
  return redactUrl(storeUrl(options));
}

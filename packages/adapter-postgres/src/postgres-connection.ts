import { createHash } from "node:crypto";
import { SkeinError, StoreClosedError } from "@skein/thread-core";
import { redactedError } from "@skein/thread-core/driver";
import pg, { type Pool, type PoolClient } from "pg";
import { connectionUnusable, postgresError, RETRYABLE_STATES, source } from "./errors.js";
import { ensureSchema } from "./schema.js";
import type { TableNames } from "./table-names.js";

/** A statement each pooled connection parses and plans once, then runs by its name. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/** Named by the text's hash, so that statements of stores in other schemas never share a name. */
export function preparedStatement(text: string): PreparedStatement {
  return { name: `skein_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`, text };
}

/**
 * pg's query for a named statement, made from the statement's text. Given a config object (`{ name, text,
 * values }`), pg copies it property by property on every query, the most expensive step of an append on
 * the client after the socket write (postgres-append-cpu.ts in packages/bench); a query object (pg's
 * "submittable") is sent as it is, and its callback spares the promise pg would wrap around it.
 */
class NamedQuery extends pg.Query {
  constructor(
    statement: PreparedStatement,
    values: unknown[],
    callback: (error: Error | undefined, result: { rows: unknown[] }) => void,
  ) {
    super(statement.text, values, callback);
    // pg reads the name from the query when it sends it: Parse once per connection, then Bind by name.
    (this as { name?: string }).name = statement.name;
  }
}

/** How often a transaction that lost a race (deadlock, serialization failure) runs again. */
const RACE_RETRIES = 20;

export interface PostgresConnectionOptions {
  pool: Pool;
  /** Whether `close()` ends the pool: true for a pool the store created from a URL. */
  ownsPool: boolean;
  names: TableNames;
  /** The URL for messages, without its password. */
  displayUrl: string;
}

/**
 * The store's pool: every call runs in one transaction on one pooled client, after the tables exist (made
 * or migrated on first use), with errors mapped to skein's.
 */
export class PostgresConnection {
  readonly pool: Pool;
  readonly names: TableNames;
  readonly displayUrl: string;
  readonly #ownsPool: boolean;
  #schema: Promise<void> | undefined;
  /** Whether the tables are known to exist (`#schema` has resolved once): then a statement needs no wait. */
  #ready = false;
  #closed = false;

  constructor(options: PostgresConnectionOptions) {
    this.pool = options.pool;
    this.#ownsPool = options.ownsPool;
    this.names = options.names;
    this.displayUrl = options.displayUrl;
  }

  /** Runs `work` inside BEGIN … COMMIT (rolled back if it throws), once more when it lost a race. */
  async transaction<Result>(work: (client: PoolClient) => Promise<Result>): Promise<Result> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.#client();
      let broken = false;
      try {
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        broken = connectionUnusable(error);
        if (!broken) {
          await client.query("ROLLBACK").catch(() => {
            broken = true;
          });
        }
        const state = (error as { code?: string }).code;
        if (state && RETRYABLE_STATES.has(state) && attempt < RACE_RETRIES) continue;
        throw this.#mapped(error);
      } finally {
        client.release(broken);
      }
    }
  }

  /** One statement outside a transaction (reads that need no lock). */
  async query<Row>(text: string, values: unknown[]): Promise<Row[]> {
    const client = await this.#client();
    let broken = false;
    try {
      return (await client.query(text, values)).rows as Row[];
    } catch (error) {
      broken = connectionUnusable(error);
      throw this.#mapped(error);
    } finally {
      client.release(broken);
    }
  }

  /**
   * One named prepared statement (see `preparedStatement`) outside a transaction; undefined when the server
   * refused it with the SQLSTATE `refusedState` (the statement then changed nothing).
   */
  prepared<Row>(
    statement: PreparedStatement,
    values: unknown[],
    refusedState?: string,
  ): Promise<Row[] | undefined> {
    if (this.#closed) return Promise.reject(new StoreClosedError(source));
    if (!this.#ready) return this.#preparedFirst(statement, values, refusedState);
    // The common path (every append): one promise, pg's callbacks inside it.
    return new Promise((resolve, reject) => {
      this.pool.connect((connectError, client, release) => {
        if (connectError || !client) {
          reject(this.#mapped(connectError));
          return;
        }
        const done = (error: Error | null | undefined, result: { rows: unknown[] } | undefined) => {
          release(error ? connectionUnusable(error) : false);
          if (!error) resolve(result?.rows as Row[]);
          else if ((error as { code?: unknown }).code === refusedState) resolve(undefined);
          else reject(this.#mapped(error));
        };
        try {
          client.query(new NamedQuery(statement, values, done));
        } catch (error) {
          done(error as Error, undefined);
        }
      });
    });
  }

  /** `prepared` before the tables are known to exist: it waits for them (made or migrated on first use). */
  async #preparedFirst<Row>(
    statement: PreparedStatement,
    values: unknown[],
    refusedState?: string,
  ): Promise<Row[] | undefined> {
    const client = await this.#client();
    let broken = false;
    try {
      return (await client.query({ ...statement, values })).rows as Row[];
    } catch (error) {
      if ((error as { code?: unknown }).code === refusedState) return undefined;
      broken = connectionUnusable(error);
      throw this.#mapped(error);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.pool.end();
  }

  async #client(): Promise<PoolClient> {
    if (this.#closed) throw new StoreClosedError(source);
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.#mapped(error);
    }
    try {
      this.#schema ??= ensureSchema(client, this.names);
      await this.#schema;
      this.#ready = true;
    } catch (error) {
      this.#schema = undefined;
      client.release(connectionUnusable(error));
      throw this.#mapped(error);
    }
    return client;
  }

  #mapped(error: unknown): Error {
    if (SkeinError.isInstance(error)) return error;
    return postgresError(redactedError(error), this.displayUrl);
  }
}

import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { startPostgres } from "../../../../scripts/postgres-server.mjs";

/**
 * The PostgreSQL a test file uses: `DATABASE_URL`, else a throw-away server this file starts (as an
 * unprivileged user when we are root) and removes.
 */
export function usePostgres(): { url(): string } {
  let server: { url: string; stop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    server = await startPostgres({ install: true });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    url: () => {
      if (!server) throw new Error("PostgreSQL is not started yet: call url() inside a test");
      return server.url;
    },
  };
}

/** A schema no other test or run uses. */
export function uniqueSchema(name: string): string {
  return `skein_faults_${name.replace(/[^a-z0-9_]/gi, "_")}_${randomBytes(5).toString("hex")}`.toLowerCase();
}

/** The store URL for `schema` on the server at `url`. */
export function postgresStoreUrl(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("schema", schema);
  return parsed.href;
}

/**
 * Resolves once the server runs no backend named `applicationName` (a store URL's `application_name`) but
 * the caller's own. A client killed with SIGKILL leaves its backend running: the statement it had sent
 * still runs, after any lock it waits for, and commits (unless `client_connection_check_interval` is set;
 * it is off by default), and the backend exits only when it next reads the dead socket. Until then a
 * killed writer can still change the store.
 */
export async function backendsGone(url: string, applicationName: string): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS backends FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
        [applicationName],
      );
      if (rows[0].backends === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await client.end();
  }
}

/** Every table of the server outside PostgreSQL's own schemas, as [schema, table]. */
export async function serverTables(url: string): Promise<Array<[string, string]>> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    return rows.map((row) => [row.table_schema as string, row.table_name as string]);
  } finally {
    await client.end();
  }
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

// What PostgreSQL tests share: a schema of their own on a shared server, and its cleanup.
import pg from "pg";
import { inject } from "vitest";
import type {} from "./global-setup.js";

/** The test server, from a global setup with `postgres: true`. */
export function databaseUrl(): string {
  return inject("databaseUrl");
}

let counter = 0;
/** A schema no other case uses, so that cases (and runs against your own DATABASE_URL) never meet. */
export function uniqueSchema(name = "t"): string {
  counter++;
  return `skein_${name}_${process.pid}_${Date.now().toString(36)}_${counter}`.toLowerCase();
}

/** Drops a schema and everything in it. */
export async function dropSchema(schema: string, url = databaseUrl()): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

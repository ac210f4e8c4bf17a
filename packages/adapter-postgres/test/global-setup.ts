import type { TestProject } from "vitest/node";
import { startPostgres } from "../../../scripts/postgres-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** DATABASE_URL, or a PostgreSQL server started for this run. */
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres({ install: true });
  project.provide("databaseUrl", server.url);
  return () => server.stop();
}

import { startPostgres } from "../../../scripts/postgres-server.mjs";

/** Runs `work` with a PostgreSQL URL: DATABASE_URL, or a throw-away loopback server; undefined when neither. */
export async function withPostgres(work: (url: string | undefined) => Promise<void>): Promise<void> {
  const log = (line: string) => process.stderr.write(`  ${line}\n`);
  const postgres = await startPostgres({ log }).catch((error: Error) => {
    log(`no PostgreSQL for the postgres rows: ${error.message}`);
    return undefined;
  });
  try {
    await work(postgres?.url);
  } finally {
    await postgres?.stop();
  }
}

import { ENCRYPTION_SIZES, encryptionRowsOf, loadAverage } from "./encryption-scenario.js";
import { type EncryptionFigures, encryptionTable } from "./encryption-section.js";
import { fsFactory, postgresFactory, redisFactory, type StoreFactory } from "./fresh-stores.js";
import { printTable } from "./measure.js";
import { machineName } from "./report.js";

/** Issue 41's rows on fs, Redis and PostgreSQL (`npm run bench -- --only encryption`). */
export async function encryptionFigures(options: {
  quick: boolean;
  redisUrl: string | undefined;
  postgresUrl: string | undefined;
  command: string;
}): Promise<EncryptionFigures> {
  const rounds = options.quick ? 3 : 7;
  const factories: StoreFactory[] = [fsFactory(rounds)];
  if (options.redisUrl) factories.push(redisFactory("redis", options.redisUrl, rounds));
  if (options.postgresUrl) factories.push(postgresFactory(options.postgresUrl, rounds));
  const before = loadAverage();
  const warmup = options.quick ? ENCRYPTION_SIZES.warmup / 5 : ENCRYPTION_SIZES.warmup;
  const rows = await encryptionRowsOf(factories, rounds, warmup, (line) => process.stderr.write(`${line}\n`));
  const figures: EncryptionFigures = {
    measured: {
      date: new Date().toISOString(),
      machine: machineName(),
      node: process.version,
      command: options.command,
    },
    sizes: ENCRYPTION_SIZES,
    rounds,
    warmup,
    load: { before, after: loadAverage() },
    rows,
  };
  console.log("\nEncryption at rest (issue 41): each operation encrypted and in clear");
  printTable(...encryptionTable(figures));
  return figures;
}

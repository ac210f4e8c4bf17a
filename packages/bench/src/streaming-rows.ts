import { fsFactory, postgresFactory, redisFactory, type StoreFactory } from "./fresh-stores.js";
import { printTable } from "./measure.js";
import { machineName } from "./report.js";
import { FLUSH_MS, STREAMING_SIZES, streamingRows } from "./streaming-scenario.js";
import { type StreamingFigures, streamingTable } from "./streaming-section.js";

/** Issue 39's rows on fs, Redis and PostgreSQL (the stores whose followers can be other processes). */
export async function streamingFigures(options: {
  quick: boolean;
  redisUrl: string | undefined;
  postgresUrl: string | undefined;
  command: string;
}): Promise<StreamingFigures> {
  const runs = options.quick ? 10 : 40;
  const factories: StoreFactory[] = [fsFactory(runs)];
  if (options.redisUrl) factories.push(redisFactory("redis", options.redisUrl, runs));
  if (options.postgresUrl) factories.push(postgresFactory(options.postgresUrl, runs));
  const figures: StreamingFigures = {
    measured: {
      date: new Date().toISOString(),
      machine: machineName(),
      node: process.version,
      command: options.command,
    },
    sizes: STREAMING_SIZES,
    flushMs: FLUSH_MS,
    rows: await streamingRows(factories),
  };
  console.log("\nStreaming replies (issue 39): streamed vs appended whole, follow across processes");
  printTable(...streamingTable(figures));
  return figures;
}

import { BRANCHING_SIZES, branchingRows } from "./branching-scenario.js";
import { CATALOGUE_SIZES, type CatalogueRows, catalogueRows, type SizedRow } from "./catalogue-scenario.js";
import {
  fsFactory,
  memoryFactory,
  postgresFactory,
  redisFactory,
  type StoreFactory,
} from "./fresh-stores.js";
import { printTable } from "./measure.js";
import { withRedisCluster } from "./redis-server.js";
import { machineName } from "./report.js";
import type { Section } from "./section-filter.js";
import {
  type BranchingFigures,
  branchingTable,
  type CatalogueFigures,
  catalogueTable,
  fillTable,
  type MeasuredAt,
  orderingTable,
} from "./sized-tables.js";

export interface IssueRowsOptions {
  sections: ReadonlySet<Section>;
  quick: boolean;
  redisUrl: string | undefined;
  postgresUrl: string | undefined;
  /** The command line, recorded with the figures. */
  command: string;
}

/** A row that could not run on a store, with the first line of why. */
function failedRow(store: string, error: unknown): SizedRow {
  return { store, operation: "all", micros: [], note: `not run: ${(error as Error).message.split("\n")[0]}` };
}

/**
 * Issues 37 and 38's rows (catalogue and branching) on every local store this machine has: memory, fs, Redis,
 * a Redis Cluster of the bench's own, PostgreSQL. `--quick` uses 10,000 where the issues say 100,000.
 */
export async function issueRows(
  options: IssueRowsOptions,
): Promise<{ catalogue?: CatalogueFigures; branching?: BranchingFigures }> {
  const { sections, quick } = options;
  if (!sections.has("catalogue") && !sections.has("branching")) return {};
  const large = quick ? 10_000 : 100_000;
  const figures: { catalogue?: CatalogueFigures; branching?: BranchingFigures } = {};
  await withRedisCluster(async (clusterUrl) => {
    const factories: StoreFactory[] = [memoryFactory(200), fsFactory(quick ? 20 : 50)];
    if (options.redisUrl) factories.push(redisFactory("redis", options.redisUrl, quick ? 50 : 100));
    if (clusterUrl) factories.push(redisFactory("redis cluster", clusterUrl, quick ? 50 : 100));
    if (options.postgresUrl) factories.push(postgresFactory(options.postgresUrl, quick ? 50 : 100));
    const measured = (): MeasuredAt => ({
      date: new Date().toISOString(),
      machine: machineName(),
      node: process.version,
      command: options.command,
    });
    if (sections.has("catalogue")) {
      const sizes = CATALOGUE_SIZES.map((size, index) =>
        index === CATALOGUE_SIZES.length - 1 ? { ...size, threads: large } : size,
      );
      const catalogue: CatalogueFigures = { measured: measured(), sizes, rows: [], ordering: [], fills: [] };
      for (const factory of factories) {
        let rows: CatalogueRows;
        try {
          rows = await catalogueRows(factory, sizes);
        } catch (error) {
          catalogue.rows.push(failedRow(factory.name, error));
          continue;
        }
        catalogue.rows.push(...rows.rows);
        catalogue.ordering.push(rows.ordering);
        catalogue.fills.push(...rows.fills);
      }
      console.log(`\nCatalogue (issue 37): one owner's newest ${sizes.length} store sizes`);
      printTable(...catalogueTable(catalogue));
      printTable(...orderingTable(catalogue));
      printTable(...fillTable(catalogue));
      figures.catalogue = catalogue;
    }
    if (sections.has("branching")) {
      const sizes = { ...BRANCHING_SIZES, large };
      const branching: BranchingFigures = { measured: measured(), sizes, rows: [] };
      for (const factory of factories) {
        try {
          branching.rows.push(...(await branchingRows(factory, sizes)));
        } catch (error) {
          branching.rows.push(failedRow(factory.name, error));
        }
      }
      console.log("\nBranching (issue 38): edit, regenerate, switchTo and alternatives");
      printTable(...branchingTable(branching));
      figures.branching = branching;
    }
  });
  return figures;
}

// Runs only the postgres rows of the bench (for a quick look while changing adapter-postgres).
import { ratioRows } from "./compare.js";
import { printTable } from "./measure.js";
import { postgresResults, postgresScalingTarget } from "./postgres-scenario.js";
import { withPostgres } from "./postgres-server.js";
import { scalingRows } from "./scaling.js";

await withPostgres(async (url) => {
  if (!url) return;
  printTable(
    ["scenario", "metric", "subject", "median", "ratio", "note"],
    ratioRows(await postgresResults(url, 5)),
  );
  printTable(
    ["store", "operation", "10 msgs", "100,000 msgs", "ratio"],
    await scalingRows(postgresScalingTarget(url, 50)),
  );
});

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openStore } from "@skein/thread-core";
import { type Result, ratioRows } from "./compare.js";
import { encryptionFigures } from "./encryption-rows.js";
import { erasureFigures, erasureTable } from "./erasure-scenario.js";
import { filesCommitResults } from "./files-commit.js";
import { filesResults } from "./files-scenario.js";
import { inProcessResults } from "./in-process.js";
import { issueRows } from "./issue-rows.js";
import { type LangGraphRow, langgraphRows } from "./langgraph-scenario.js";
import { printTable } from "./measure.js";
import { parseResults } from "./parse-scenario.js";
import { postgresResults, postgresScalingTarget } from "./postgres-scenario.js";
import { withPostgres } from "./postgres-server.js";
import { concurrencyTable, type RedisConcurrencyRow, redisConcurrencyRows } from "./redis-concurrency.js";
import { redisResults } from "./redis-scenario.js";
import { withRedis } from "./redis-server.js";
import { benchmarksMarkdown, type Figures, machineName } from "./report.js";
import { retentionRows } from "./retention-rows.js";
import { type RuntimeRow, runtimeRows } from "./runtime-scenario.js";
import { rawReadRow, type ScalingTarget, scalingRows } from "./scaling.js";
import { chosenSections, mergedFigures } from "./section-filter.js";
import { growthRows, heapRows, type StorageRow, storageRows } from "./storage-scenario.js";
import { streamingFigures } from "./streaming-rows.js";
import { temporaryDirectory } from "./temporary-directory.js";

const quick = process.argv.includes("--quick");
// `--only catalogue,branching`: those sections alone; their figures replace the earlier ones in
// bench-results.json and BENCHMARKS.md, and the rest of both files stays as the last run left it.
const sections = chosenSections(process.argv.slice(2));
const command = `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim().replace(/ --$/, "");
const rounds = quick ? 3 : 7;
const root = fileURLToPath(new URL("../../../", import.meta.url));

function section(title: string): void {
  console.log(`\n${title}`);
}

await withPostgres(async (postgresUrl) =>
  withRedis(async (redisUrl) => {
    console.log(
      `skein bench${quick ? " (quick)" : ""} — Node ${process.version}, medians of ${rounds} rounds`,
    );
    const results: Result[] = [];
    if (sections.has("speed")) {
      results.push(...(await inProcessResults(rounds)));
      results.push(...(await filesResults(rounds)));
      results.push(...(await filesCommitResults(rounds)));
      if (redisUrl) results.push(...(await redisResults(redisUrl, rounds)));
      else
        results.push({
          scenario: "redis",
          subject: "all",
          metric: "append and load",
          skipped: "no redis-server here and REDIS_URL unset",
        });
      if (postgresUrl) results.push(...(await postgresResults(postgresUrl, rounds)));
      else
        results.push({
          scenario: "postgres",
          subject: "all",
          metric: "append and load",
          skipped: "no PostgreSQL here and DATABASE_URL unset",
        });
      results.push(...(await parseResults(quick ? 5 : 15)));
      section("Speed beside the raw limit and peers (ratio to the first row of each metric)");
      printTable(["scenario", "metric", "subject", "median", "ratio", "note"], ratioRows(results));
    }

    const scaling: string[][] = [];
    if (sections.has("scaling")) {
      section("Scaling: one operation on a thread of 10 vs 100,000 messages");
      const targets: ScalingTarget[] = [
        { name: "memory", open: () => openStore("memory:") },
        { name: "fs", open: async () => openStore(`file://${temporaryDirectory()}`), runs: quick ? 30 : 100 },
      ];
      if (redisUrl) targets.push({ name: "redis", open: () => openStore(redisUrl), runs: quick ? 50 : 200 });
      if (postgresUrl) targets.push(postgresScalingTarget(postgresUrl, quick ? 50 : 200));
      for (const target of targets) {
        process.stderr.write(`  scaling: ${target.name}…\n`);
        try {
          scaling.push(...(await scalingRows(target)));
        } catch (error) {
          scaling.push([target.name, "all", "—", "—", `not run: ${(error as Error).message.split("\n")[0]}`]);
        }
      }
      scaling.push(await rawReadRow());
      printTable(["store", "operation", "10 msgs", "100,000 msgs", "ratio"], scaling);
    }

    const storage: StorageRow[] = [];
    if (sections.has("storage")) {
      section("Storage: a 1,000-message thread");
      storage.push(
        ...(await storageRows(redisUrl)),
        ...(await growthRows()),
        ...(await heapRows(quick ? 2000 : 10_000)),
      );
      printTable(
        ["subject", "bytes", "per message", "ratio"],
        storage.map((row) => [
          row.subject,
          String(row.bytes),
          row.perMessage.toFixed(0),
          `${row.ratio.toFixed(2)}×`,
        ]),
      );
    }

    let langgraph: LangGraphRow[] = [];
    const langgraphSteps = quick ? 200 : 1000;
    if (sections.has("langgraph")) {
      section(
        `LangGraph checkpointers: ${langgraphSteps} one-message chat turns (graph.invoke), bytes kept and time`,
      );
      langgraph = await langgraphRows(redisUrl, langgraphSteps);
      printTable(
        ["saver", "bytes", "per step", "seconds", "messages kept"],
        langgraph.map((row) => [
          row.subject,
          String(row.bytes),
          row.bytesPerStep.toFixed(0),
          row.seconds.toFixed(2),
          String(row.messages),
        ]),
      );
    }

    let redisConcurrency: RedisConcurrencyRow[] = [];
    if (sections.has("redis-concurrency")) {
      section(
        "Redis: 50 threads appended at once, skein beside the raw atomic Lua append (aggregate appends/s)",
      );
      redisConcurrency = redisUrl ? await redisConcurrencyRows(redisUrl, quick ? 3 : 7) : [];
      printTable(...concurrencyTable(redisConcurrency));
    }

    let runtime: RuntimeRow[] = [];
    if (sections.has("runtime")) {
      section(
        "Runtime: thread-service with a no-op runner on 1,000 threads at once, beside the store's own appends",
      );
      runtime = await runtimeRows(redisUrl, {
        threads: quick ? 200 : 1000,
        rounds: quick ? 1 : 3,
      });
      printTable(
        ["store", "subject", "threads", "messages", "messages/s", "spread", "ratio", "per-thread order"],
        runtime.map((row) => [
          row.store,
          row.subject,
          String(row.threads),
          String(row.messages),
          row.messagesPerSecond.toFixed(0),
          `${row.spread[0].toFixed(0)}–${row.spread[1].toFixed(0)}`,
          `${row.ratio.toFixed(2)}×`,
          row.orderVerified ? "verified" : "BROKEN",
        ]),
      );
    }

    const { catalogue, branching } = await issueRows({ sections, quick, redisUrl, postgresUrl, command });
    const retention = sections.has("retention") ? await retentionRows(quick, command, redisUrl) : undefined;
    const streaming = sections.has("streaming")
      ? await streamingFigures({ quick, redisUrl, postgresUrl, command })
      : undefined;

    let erasure: Awaited<ReturnType<typeof erasureFigures>> | undefined;
    if (sections.has("erasure")) {
      section("Erasure: store.erase of one owner's threads against deleting them one by one (issue 40)");
      const measured = {
        date: new Date().toISOString(),
        machine: machineName(),
        node: process.version,
        command,
      };
      erasure = await erasureFigures({ quick, redisUrl, postgresUrl, measured });
      printTable(...erasureTable(erasure.rows));
    }

    const encryption = sections.has("encryption")
      ? await encryptionFigures({ quick, redisUrl, postgresUrl, command })
      : undefined;

    if (!quick) {
      const fresh: Figures = {
        node: process.version,
        machine: machineName(),
        date: new Date().toISOString(),
        results,
        scaling,
        storage,
        langgraph,
        runtime,
        redisConcurrency,
        ...(catalogue ? { catalogue } : {}),
        ...(branching ? { branching } : {}),
        ...(retention ? { retention } : {}),
        ...(streaming ? { streaming } : {}),
        ...(erasure ? { erasure } : {}),
        ...(encryption ? { encryption } : {}),
      };
      const earlierPath = `${root}bench-results.json`;
      const earlier = existsSync(earlierPath)
        ? (JSON.parse(readFileSync(earlierPath, "utf8")) as Figures)
        : undefined;
      const figures = mergedFigures(earlier, fresh, sections, command);
      writeFileSync(`${root}bench-results.json`, `${JSON.stringify(figures, null, 2)}\n`);
      writeFileSync(`${root}BENCHMARKS.md`, benchmarksMarkdown(figures));
      console.log("\nwrote BENCHMARKS.md and bench-results.json");
    }
  }),
);

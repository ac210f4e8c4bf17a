import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-import-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const createdAt = "2026-11-21T22:39:36.000Z";

/** A memory export of an empty thread, as `skein export` writes it. */
function exported(id: string) {
  return {
    $type: "memory",
    $v: 1,
    id,
    createdAt,
    metadata: {},
    context: {},
    revision: 0,
    end: { segment: "seg_a", offset: 0 },
    segments: [{ id: "seg_a", base: null, start: 0, createdAt, messages: [] }],
    events: [],
  };
}

/** Runs one `skein` command line in this process; resolves to its exit code and what it printed. */
async function skein(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const streams = { stdout: new PassThrough(), stderr: new PassThrough() };
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  streams.stdout.on("data", (chunk: Buffer) => chunks.stdout.push(chunk));
  streams.stderr.on("data", (chunk: Buffer) => chunks.stderr.push(chunk));
  const code = await runCli(args, { ...streams, stdin: Readable.from([]), environment: {} });
  return {
    code,
    stdout: Buffer.concat(chunks.stdout).toString("utf8"),
    stderr: Buffer.concat(chunks.stderr).toString("utf8"),
  };
}

/** An object 300 `end`s deep: thread-core's error names the path to what is wrong, 1,200 characters of it. */
function deeplyWrong(): unknown {
  let value: unknown = {};
  for (let depth = 0; depth < 300; depth++) value = { end: value };
  return value;
}

describe("skein import of several threads, one of them failing", () => {
  // Regression: the count of threads a failed import made before it failed came at the end of the error line,
  // and a long line was cut at its end, so `skein import` landed a thread and said nothing of it (found by
  // packages/faults' hostile-cli with FAULTS_SEED=1970815970: 10 threads listed, 9 said imported).
  it.each([
    ["a long error", ["long-error"], deeplyWrong()],
    ["a long file path", ["p".repeat(200), "p".repeat(200)], { $type: "memory", id: 5 }],
  ])("says how many it imported before the failure, even with %s", async (_case, folders, wrong) => {
    const where = join(directory, ...folders);
    mkdirSync(where, { recursive: true });
    const file = join(where, "threads.jsonl");
    const store = pathToFileURL(join(where, "store")).href;
    writeFileSync(file, `${JSON.stringify(exported("landed"))}\n${JSON.stringify(wrong)}\n`);
    const run = await skein(["--store", store, "import", file]);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/^skein: [^\n]+ \(1 of 2 imported before it\)\n$/);
    expect(run.stderr.length).toBeLessThan(520);
    const listed = await skein(["--store", store, "ls", "--json"]);
    expect(JSON.parse(listed.stdout).items.map((item: { id: string }) => item.id)).toEqual(["landed"]);
  });
});

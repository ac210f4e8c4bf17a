import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openStore } from "@skein/thread-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exited, startChild } from "./support/child-processes.js";
import type { DocumentShape } from "./support/hangs.js";
import { type HostileFile, hostileFiles } from "./support/hostile-documents.js";
import { chooseSeed } from "./support/seeded-random.js";
import { expectSkeinBuilt, runSkein } from "./support/skein-binary.js";
import { temporaryDirectory } from "./support/temporary-directories.js";

/** Files through the CLI's import, in batches of BATCH per process. */
const CLI_FILES = 600;
const BATCH = 200;
/** Ends a batch child that stopped answering; each import inside it is bounded by the child's HANG_MS. */
const BATCH_BOUND_MS = 500_000;
/**
 * What an import of a hostile file may end with: a failure (1), not found (3), a conflict (4) or invalid data
 * (5). Exit 2 (usage) and 6 (store) cannot be the file's fault: the command line and the store are fine.
 */
const IMPORT_FAILURE_CODES = [1, 3, 4, 5];
/** A stack frame, as Node.js prints it. */
const STACK_FRAME = /\n\s+at /;

interface CliHang {
  file: string;
  kind: string;
  hung: true;
  shapes: DocumentShape[];
  pollutedBy?: string;
  late: string[];
}

interface CliResult {
  file: string;
  kind: string;
  code: number;
  ms: number;
  stdout: string;
  /** The first 2,000 characters of standard error. */
  stderr: string;
  stderrLines: number;
  stderrLength: number;
  stackFrame: boolean;
  controlCharacter: boolean;
}

/** A skein error names its package; the CLI's own errors say what is wrong with the input. */
const TYPED_ERROR =
  /^skein: [^\n]*(\[(thread-core|adapter-[a-z]+)\] |is not valid JSON|is empty; expected JSON|no such file)/;

/** What every failed `skein` run must print: one line `skein: …`, a typed error, no stack trace. */
function expectCleanFailure(stderr: string, where: string): void {
  expect(stderr, where).toMatch(/^skein: [^\n]+\n$/);
  expect(stderr, where).not.toMatch(STACK_FRAME);
  expect(stderr, where).toMatch(TYPED_ERROR);
}

/** Runs one CLI batch child over a manifest, starting it again after each file whose import hung. */
async function importBatch(
  storeUrl: string,
  manifest: string,
): Promise<{ lines: string[]; hangs: string[] }> {
  const lines: string[] = [];
  const hangs: string[] = [];
  for (let from = 0; ; ) {
    const child = startChild("cli-import-batch.ts", [storeUrl, manifest, String(from)]);
    child.process.stdin?.end();
    const timer = setTimeout(() => child.process.kill("SIGKILL"), BATCH_BOUND_MS);
    const code = await exited(child.process);
    clearTimeout(timer);
    const output = child.output.lines();
    if (code === 0) return { lines: [...lines, ...output], hangs };
    const last = output.at(-1);
    if (code !== 3 || last === undefined) {
      throw new Error(`a CLI batch ended with ${code}: ${child.output.stderr().slice(-4000)}`);
    }
    lines.push(...output.slice(0, -1));
    hangs.push(last);
    from += output.length;
  }
}

describe("hostile files through skein import", () => {
  it(
    `${CLI_FILES} hostile files through the CLI's import, ${BATCH} per process: clean one-line errors, documented exit codes`,
    async () => {
      expectSkeinBuilt();
      const seed = chooseSeed();
      const directory = await temporaryDirectory("hostile-cli");
      const storeUrl = pathToFileURL(join(directory, "store")).href;
      const files = fc.sample(hostileFiles(), { seed, numRuns: CLI_FILES });
      const manifests: string[] = [];
      for (let batch = 0; batch * BATCH < files.length; batch++) {
        const folder = join(directory, `batch-${batch}`);
        await mkdir(folder);
        const entries = await Promise.all(
          files.slice(batch * BATCH, (batch + 1) * BATCH).map(async (file: HostileFile, index) => {
            const path = join(folder, `${index}.json`);
            await writeFile(path, file.content);
            return { file: path, kind: file.kind };
          }),
        );
        const manifest = join(folder, "manifest.json");
        await writeFile(manifest, JSON.stringify(entries));
        manifests.push(manifest);
      }
      // The batches share one store, as several people importing at once would.
      const batches = await Promise.all(manifests.map((manifest) => importBatch(storeUrl, manifest)));
      const hangs = batches.flatMap((batch) => batch.hangs.map((line) => JSON.parse(line) as CliHang));
      expect(hangs, `seed ${seed}: no import may hang`).toEqual([]);
      const codes: Record<number, number> = {};
      let slowest = 0;
      // Reported, not asserted here: see "error lines stay short and free of control characters" below.
      let longest = 0;
      let withControlCharacters = 0;
      const importedIds: string[] = [];
      // Threads the imports said they made, from every form (one object, JSON Lines, an array), counting those
      // a failed import of several made before its failure; and failures whose standard error was cut short.
      let importedCount = 0;
      let cutShort = 0;
      for (const { lines, hangs: hung } of batches) {
        const end = JSON.parse(lines.at(-1) as string) as {
          done: number;
          pollutedBy?: string;
          late: string[];
        };
        expect(end.pollutedBy, `seed ${seed}`).toBeUndefined();
        expect(end.late, `seed ${seed}`).toEqual([]);
        // A line for every file: its result, or its hang.
        expect(lines.length - 1 + hung.length).toBe(BATCH);
        for (const line of lines.slice(0, -1)) {
          const result = JSON.parse(line) as CliResult;
          const where = `seed ${seed}, ${result.kind}, ${result.file}`;
          codes[result.code] = (codes[result.code] ?? 0) + 1;
          slowest = Math.max(slowest, result.ms);
          // Exit 2 (usage) and 6 (store) cannot be the input's fault here: the command line and store are fine.
          expect([0, 1, 3, 4, 5], where).toContain(result.code);
          if (result.code === 0) {
            const single = /^imported 1 thread into .* as [a-z]+: (.*)\n$/s.exec(result.stdout);
            if (single) importedIds.push(single[1] as string);
            expect(result.stderr, where).toBe("");
            expect(result.stdout, where).toMatch(/^imported \d+ threads? into /);
            importedCount += Number(/^imported (\d+) /.exec(result.stdout)?.[1]);
          } else {
            const before = /\((\d+) of \d+ imported before it\)\n$/.exec(result.stderr);
            if (before) importedCount += Number(before[1]);
            if (result.stderrLength > result.stderr.length) cutShort++;
            expect(result.stderrLines, where).toBe(1);
            expect(result.stackFrame, where).toBe(false);
            expect(result.stderr, where).toMatch(TYPED_ERROR);
            longest = Math.max(longest, result.stderrLength);
            if (result.controlCharacter) withControlCharacters++;
          }
        }
      }
      // Whatever was imported loads back whole.
      const store = await openStore(storeUrl);
      const listed = new Set<string>();
      for (let cursor: string | undefined, first = true; first || cursor; first = false) {
        const page = await store.list({ limit: 100, ...(cursor ? { cursor } : {}) });
        for (const item of page.items) {
          const thread = await store.get(item.id);
          if (thread.capabilities.views && ["fs", "memory"].includes(thread.type)) await thread.messages();
          JSON.stringify(thread);
          listed.add(item.id);
        }
        cursor = page.cursor;
      }
      await store.close();
      for (const id of importedIds)
        expect(listed.has(id), `imported ${JSON.stringify(id)} is listed`).toBe(true);
      // Every thread any import made is listed and loads, and nothing else is there: the CLI says exactly what
      // it imported. (FAULTS_SEED=1970815970 once listed 10 threads against 9 said: a failed import's count at
      // the end of an error line too long was cut off with the line's end.)
      expect(cutShort, `seed ${seed}: error lines are short, none cut here`).toBe(0);
      expect(listed.size, `seed ${seed}`).toBe(importedCount);
      expect(codes[0]).toBeGreaterThan(0);
      expect(codes[5]).toBeGreaterThan(CLI_FILES / 4);
      console.info(
        `seed ${seed}; exit codes ${JSON.stringify(codes)}; slowest import ${slowest} ms; ${listed.size} threads imported and read back ` +
          `(${importedCount} said imported, ${cutShort} error lines cut short); ` +
          `longest error line ${longest} characters; ${withControlCharacters} error lines with raw control characters`,
      );
    },
    3 * BATCH_BOUND_MS,
  );

  it("the most hostile files through the real skein binary: no stack trace, documented exit codes", async () => {
    expectSkeinBuilt();
    const directory = await temporaryDirectory("hostile-bin");
    const storeUrl = pathToFileURL(join(directory, "store")).href;
    const deep = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;
    const cases: Array<[string, string | Uint8Array]> = [
      ["deep-array", deep(100_000)],
      ["deep-metadata", `{"$type":"memory","id":"d","metadata":{"d":${deep(50_000)}}}`],
      ["deep-object", `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`],
      [
        "huge-string",
        JSON.stringify({
          $type: "memory",
          id: "h",
          createdAt: "2026-11-21T22:39:36.000Z",
          metadata: { s: "x".repeat(20_000_000) },
        }),
      ],
      ["huge-id", JSON.stringify({ $type: "memory", id: "i".repeat(10_240) })],
      ["proto", '{"$type":"memory","id":"p","metadata":{"__proto__":{"polluted":true}}}'],
      ["proto-type", '{"$type":"__proto__","id":"p"}'],
      ["constructor", '{"$type":"constructor","id":"c","constructor":{"prototype":{"polluted":true}}}'],
      ["wrong-types", '{"$type":"memory","id":5,"$v":"1","segments":"x","end":[]}'],
      ["infinity", '{"$type":"memory","id":"n","revision":1e999999}'],
      ["not-json", "{'$type': 'memory'}"],
      ["truncated", '{"$type":"memory","id":"t","segm'],
      ["empty", ""],
      ["bytes", new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x22, 0xc3, 0x28])],
      ["wide-array", JSON.stringify(Array.from({ length: 200_000 }, () => 0))],
      [
        "traversal-id",
        JSON.stringify({ $type: "fs", id: "../../../../etc/passwd", createdAt: "2026-11-21T22:39:36.000Z" }),
      ],
    ];
    const run = async ([name, content]: [string, string | Uint8Array]) => {
      const file = join(directory, `${name}.json`);
      await writeFile(file, content);
      return { name, ...(await runSkein(["--store", storeUrl, "import", file])) };
    };
    const results = [];
    // Two at a time: one per core.
    for (let index = 0; index < cases.length; index += 2)
      results.push(...(await Promise.all(cases.slice(index, index + 2).map(run))));
    for (const result of results) {
      expect(IMPORT_FAILURE_CODES, result.name).toContain(result.code);
      expectCleanFailure(result.stderr, result.name);
    }
    console.info(
      results.map((result) => `${result.name}: exit ${result.code} in ${result.ms} ms`).join("; "),
    );
  });

  // Regression: a store error that was no one's usage (a RangeError: the stack overflowing while thread-core
  // ordered 12,000 chained segments) exited 2, "usage", as if the command line were wrong. Only a usage error
  // exits 2; an error skein did not foresee exits 1 with one line that says it is internal.
  it("an import the store fails on in an unforeseen way never exits 2 (usage)", async () => {
    expectSkeinBuilt();
    const directory = await temporaryDirectory("hostile-chain");
    const file = join(directory, "chain.json");
    await writeFile(file, JSON.stringify(chainedLog(12_000)));
    const { code, stdout, stderr } = await runSkein(["--store", "memory:", "import", file]);
    expect(code, stderr).not.toBe(2);
    if (code === 0) {
      // thread-core orders segments without recursion: the import succeeds.
      expect(stdout).toMatch(/^imported 1 thread into memory: as memory: chain\n$/);
    } else {
      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(/^skein: [^\n]*chain\.json: internal error: RangeError: [^\n]+\n$/);
      expect(stderr).not.toMatch(STACK_FRAME);
    }
  });

  // Regression: error messages once quoted strings from the imported document as they were (segment ids,
  // the `$type` of an unregistered type), and the CLI printed them raw, so a hostile file could write terminal
  // escapes and a 1,000,000-character segment id made a 1 MB line. thread-core now quotes untrusted text
  // (`quoteUntrusted`) and the CLI keeps each error line short and free of control characters.
  it("error lines stay short and free of raw control characters, whatever the file holds", async () => {
    const directory = await temporaryDirectory("hostile-lines");
    const storeUrl = pathToFileURL(join(directory, "store")).href;
    const log = (segment: string) => ({
      $type: "memory",
      id: "log",
      createdAt: "2026-11-21T22:39:36.000Z",
      revision: 0,
      end: { segment, offset: 0 },
      segments: [],
    });
    const cases: Array<[string, unknown]> = [
      ["escape-in-segment", log("\u001b]0;pwned\u0007\u001b[2J")],
      ["escape-in-type", { $type: "\u001b[2Jacme.ticket", id: "t" }],
      ["huge-segment", log("s".repeat(1_000_000))],
    ];
    for (const [name, document] of cases) {
      const file = join(directory, `${name}.json`);
      await writeFile(file, JSON.stringify(document));
      const { code, stderr } = await runSkein(["--store", storeUrl, "import", file]);
      expect(code, name).toBe(5);
      expectCleanFailure(stderr, name);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
      expect(stderr.slice(0, -1), name).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(stderr.length, name).toBeLessThan(4_096);
    }
  });
});

/** A memory log of `count` segments, each continuing the one before, listed newest first. */
function chainedLog(count: number) {
  const createdAt = "2026-11-21T22:39:36.000Z";
  const segments = Array.from({ length: count }, (_, index) => ({
    id: `s${index}`,
    base: index === 0 ? null : { segment: `s${index - 1}`, offset: 1 },
    start: index,
    createdAt,
    messages: [{ id: `m${index}`, role: "user", createdAt, contents: [{ type: "text", text: "x" }] }],
  })).reverse();
  return {
    $type: "memory",
    $v: 1,
    id: "chain",
    createdAt,
    metadata: {},
    context: {},
    revision: count,
    end: { segment: `s${count - 1}`, offset: 1 },
    segments,
    events: [],
  };
}

// Docs are code: every ts/js block of every README type-checks against the built packages, imported by name as
// a user imports them (through each package's `exports`, so its dist .d.ts), with `strict` and
// `exactOptionalPropertyTypes`; whole programs also run, and must exit by themselves.
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { type ReadmeBlock, readmeBlocks, readmeFiles, repositoryRoot } from "./readme-blocks.js";

const workDirectory = fileURLToPath(new URL("../.test-results/readme-blocks/", import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** A block that has not exited by then left something open (a store, a server, a client). */
const EXIT_TIMEOUT_MS = 60_000;

/** What a user's strict project would say; `exactOptionalPropertyTypes` because many turn it on. */
const compilerOptions: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts"],
  types: ["node"],
  allowJs: true,
  checkJs: true,
  skipLibCheck: true,
  noEmit: true,
};

interface PreparedBlock extends ReadmeBlock {
  name: string;
  directory: string;
  file: string;
  /** Lines put before the block's code (a fragment's declarations). */
  offset: number;
}

const blocks: PreparedBlock[] = readmeFiles()
  .flatMap(readmeBlocks)
  .map((block) => {
    const name = `${block.readme.replace(/\/?README\.md$/, "").replace(/^packages\//, "") || "root"}:${block.line}`;
    const directory = join(workDirectory, name.replace(/[^a-z0-9-]/gi, "-"));
    const prelude = block.kind === "fragment" && block.note ? `${block.note}\n` : "";
    return {
      ...block,
      name,
      directory,
      file: join(directory, block.language === "ts" ? "block.ts" : "block.mjs"),
      offset: prelude ? prelude.split("\n").length - 1 : 0,
      code: `${prelude}${block.code}\nexport {};\n`,
    };
  });

const problems = new Map<string, string[]>();

beforeAll(() => {
  rmSync(workDirectory, { recursive: true, force: true });
  mkdirSync(workDirectory, { recursive: true });
  // As in a user's ESM package: .ts files are modules, top-level await allowed.
  writeFileSync(join(workDirectory, "package.json"), '{ "type": "module", "private": true }\n');
  for (const block of blocks) {
    mkdirSync(block.directory, { recursive: true });
    writeFileSync(block.file, block.code);
  }
  const program = ts.createProgram(
    blocks.map((block) => block.file),
    compilerOptions,
  );
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const block = blocks.find((candidate) => candidate.file === diagnostic.file?.fileName);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!block || !diagnostic.file || diagnostic.start === undefined) {
      problems.set("(program)", [...(problems.get("(program)") ?? []), text]);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const where =
      line < block.offset
        ? `${block.readme}, the fragment's declarations, line ${line + 1}`
        : `${block.readme}:${block.line + line - block.offset}`;
    problems.set(block.name, [...(problems.get(block.name) ?? []), `${where}: TS${diagnostic.code} ${text}`]);
  }
  // One TypeScript program over every block: generous, as it can take minutes on a loaded machine.
}, 600_000);

describe("README code blocks", () => {
  it("are found in the root README and the packages' READMEs", () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(new Set(blocks.map((block) => block.readme))).toContain("README.md");
  });

  it("compile as a whole, with nothing outside a block failing", () => {
    const found = problems.get("(program)") ?? [];
    expect(found.length, found.join("\n")).toBe(0);
  });

  describe.each(blocks.map((block) => [block.name, block] as const))("%s", (_name, block) => {
    it(`type-checks against the built packages (${block.kind})`, () => {
      const found = problems.get(block.name) ?? [];
      expect(found.length, found.join("\n")).toBe(0);
    });

    // Only whole programs run; the others say why in their marker (a fragment, or what running would need).
    if (block.kind !== "program") return;
    it("runs and exits by itself", async () => {
      const redisUrl = inject("redisUrl");
      const openai = inject("openai");
      // The README's default Redis address stands for the test's loopback server.
      writeFileSync(block.file, block.code.replace(/redis:\/\/(127\.0\.0\.1|localhost):6379/g, redisUrl));
      const { SKEIN_STORE: _ignored, ...environment } = process.env;
      const result = await new Promise<{ code: number | null; output: string; timedOut: boolean }>(
        (resolve) => {
          const child = execFile(
            process.execPath,
            ["--import", tsx, block.file],
            {
              cwd: block.directory,
              // `new OpenAI()` reads these: the blocks talk to the loopback emulator, never to the internet.
              env: {
                ...environment,
                REDIS_URL: redisUrl,
                OPENAI_BASE_URL: openai.baseUrl,
                OPENAI_API_KEY: openai.apiKey,
                OPENAI_AGENTS_DISABLE_TRACING: "1",
              },
              timeout: EXIT_TIMEOUT_MS,
              killSignal: "SIGKILL",
            },
            (error, stdout, stderr) =>
              resolve({
                code: child.exitCode,
                output: `${stdout}${stderr}`,
                timedOut: Boolean(error && child.signalCode === "SIGKILL"),
              }),
          );
        },
      );
      const where = `${block.readme}:${block.line} (run in ${relative(repositoryRoot, block.directory)})`;
      expect(result.timedOut, `${where} did not exit: it leaves something open\n${result.output}`).toBe(
        false,
      );
      expect(result.code, `${where} failed\n${result.output}`).toBe(0);
    });
  });
});

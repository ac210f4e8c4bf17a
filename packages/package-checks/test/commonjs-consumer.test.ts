// skein's packages are ESM only. A CommonJS TypeScript project that imports one must get a compile-time error
// (TS2307: each entry point answers `import` only), never code that compiles and then fails in `require()`;
// an ESM project compiles clean.
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { publicPackages } from "./public-packages.js";

const directory = fileURLToPath(new URL("../.test-results/commonjs-consumer/", import.meta.url));

const entryPoints = publicPackages().flatMap(({ manifest }) =>
  Object.keys(manifest.exports ?? { ".": {} })
    .filter((path) => path !== "./package.json")
    .map((path) => `${manifest.name}${path.slice(1)}`),
);

/** Diagnostics of one file importing every entry point, in a package without `"type": "module"`. */
function compile(extension: ".ts" | ".mts"): string[] {
  const file = join(directory, `consumer${extension}`);
  writeFileSync(
    file,
    `${entryPoints.map((name, index) => `import * as entry${index} from "${name}";`).join("\n")}\nexport const all = [${entryPoints.map((_, index) => `entry${index}`).join(", ")}];\n`,
  );
  const program = ts.createProgram([file], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ["node"],
    skipLibCheck: true,
    noEmit: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line ?? -1;
    return `${line}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
  });
}

beforeAll(() => {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  // No "type": "module": a .ts file here is CommonJS, as in a CommonJS project.
  writeFileSync(join(directory, "package.json"), '{ "private": true }\n');
});

describe("a CommonJS consumer", () => {
  it("finds entry points to import", () => {
    expect(entryPoints).toContain("@skein/thread-core");
    expect(entryPoints).toContain("@skein/thread-core/testing");
  });

  it("gets TS2307 at compile time for every entry point of every package", () => {
    const diagnostics = compile(".ts");
    const refused = entryPoints.filter((name, index) =>
      diagnostics.some((line) => line.startsWith(`${index}: TS2307`) && line.includes(`'${name}'`)),
    );
    expect(refused).toEqual(entryPoints);
  });

  it("is refused at run time too, by Node's resolution, not later in the package's code", async () => {
    const script = `for (const name of ${JSON.stringify(entryPoints)}) { try { require(name); console.log(name, "loaded"); } catch (error) { console.log(name, error.code); } }`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: directory });
    expect(stdout.trim().split("\n")).toEqual(
      entryPoints.map((name) => `${name} ERR_PACKAGE_PATH_NOT_EXPORTED`),
    );
  });
});

describe("an ESM consumer", () => {
  it("compiles every entry point clean", () => {
    expect(compile(".mts")).toEqual([]);
  });
});

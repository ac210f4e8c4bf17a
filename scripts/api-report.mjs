#!/usr/bin/env node
// The public surface of every published package, one report per `exports` entry, read from the built .d.ts with the
// repository's own TypeScript (5.9.3). API Extractor would do the same job, but its 7.x line bundles another compiler
// (TypeScript 6.0) and reads one entry point per run; this reads all entries of all packages in one program.
//
//   node scripts/api-report.mjs            compare the checked-in reports with the build (exit 1 on a difference)
//   node scripts/api-report.mjs --update   write packages/<pkg>/api/<entry>.api.md from the build
//
// Build first (`npm run api:update` does). A report lists each exported name, what it is, and its declaration
// without comments, so a change of a signature shows in review as a change of the report.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const repositoryRoot = fileURLToPath(new URL("..", import.meta.url));
export const UPDATE_COMMAND = "npm run api:update";

/** `.` → `index`, `./driver` → `driver`, `./a/b` → `a-b`. */
function entryName(subpath) {
  return subpath === "." ? "index" : subpath.replace(/^\.\//, "").replaceAll("/", "-");
}

function typesOf(target) {
  if (typeof target === "string") return target.endsWith(".d.ts") ? target : undefined;
  if (!target || typeof target !== "object") return undefined;
  if (typeof target.types === "string") return target.types;
  for (const condition of ["import", "default"]) {
    const found = typesOf(target[condition]);
    if (found) return found;
  }
  return undefined;
}

/** Every entry point of every package that is not private: its name, its .d.ts and where its report lives. */
export function apiEntries(root = repositoryRoot) {
  const packages = join(root, "packages");
  const entries = [];
  for (const directory of readdirSync(packages).sort()) {
    const path = join(packages, directory);
    const manifestPath = join(path, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const types = typesOf(target);
      if (!types) continue;
      const name = entryName(subpath);
      entries.push({
        packageName: manifest.name,
        packagePath: path,
        subpath,
        importPath: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        declarationFile: join(path, types),
        reportFile: join(path, "api", `${name}.api.md`),
      });
    }
  }
  return entries;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function kindOf(symbol) {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return "class";
  if (flags & ts.SymbolFlags.Function) return "function";
  if (flags & ts.SymbolFlags.Enum) return "enum";
  if (flags & ts.SymbolFlags.Interface && flags & ts.SymbolFlags.Variable) return "const + interface";
  if (flags & ts.SymbolFlags.TypeAlias && flags & ts.SymbolFlags.Variable) return "const + type";
  if (flags & ts.SymbolFlags.Interface) return "interface";
  if (flags & ts.SymbolFlags.TypeAlias) return "type";
  if (flags & ts.SymbolFlags.Variable) return "const";
  if (flags & (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)) return "namespace";
  return "other";
}

/** The package a declaration file belongs to, by the nearest package.json above it. */
function owningPackage(fileName, cache) {
  let directory = dirname(fileName);
  while (directory !== dirname(directory)) {
    if (cache.has(directory)) return cache.get(directory);
    const manifestPath = join(directory, "package.json");
    // A package's inner folders may hold a package.json without a name (zod/v4/classic): keep climbing, so a
    // report names the package, never a path on the machine that wrote it.
    const name = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, "utf8")).name : undefined;
    if (typeof name === "string") {
      cache.set(directory, name);
      return name;
    }
    directory = dirname(directory);
  }
  return "?";
}

function printDeclaration(declaration) {
  // A variable's type is on its statement (`declare const X: T`), not on the declaration alone.
  const node =
    ts.isVariableDeclaration(declaration) && ts.isVariableDeclarationList(declaration.parent)
      ? declaration.parent.parent
      : declaration;
  return printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile()).trim();
}

function hasDocumentation(symbol, checker) {
  if (symbol.getDocumentationComment(checker).some((part) => part.text.trim() !== "")) return true;
  // A doc comment on any declaration counts, tags only (`@internal`, `@deprecated`) do not.
  return (symbol.declarations ?? []).some((declaration) =>
    ts
      .getJSDocCommentsAndTags(declaration)
      .some((doc) => ts.isJSDoc(doc) && typeof doc.comment === "string" && doc.comment.trim() !== ""),
  );
}

/**
 * Reads every entry's built declarations and returns, per entry, its report text and the exported names that carry
 * no doc comment. Throws when a declaration file is missing (the package was not built).
 */
export function buildApiReports(root = repositoryRoot) {
  const entries = apiEntries(root);
  const missing = entries.filter((entry) => !existsSync(entry.declarationFile));
  if (missing.length > 0) {
    throw new Error(
      `[api-report] no built declarations for ${missing.map((entry) => entry.importPath).join(", ")}: run \`npx turbo run build\` first`,
    );
  }
  const program = ts.createProgram({
    rootNames: entries.map((entry) => entry.declarationFile),
    options: {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
  });
  const checker = program.getTypeChecker();
  const packageCache = new Map();
  return entries.map((entry) => {
    const source = program.getSourceFile(entry.declarationFile);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`[api-report] ${entry.declarationFile} is not a module`);
    const lines = [
      `# API report: ${entry.importPath}`,
      "",
      `Generated from the build by \`${UPDATE_COMMAND}\`; \`npm test\` fails when it differs from the build.`,
      "Declarations are printed without comments; a name declared in another package shows where it comes from.",
      "",
    ];
    const undocumented = [];
    const reexported = [];
    const exported = checker
      .getExportsOfModule(moduleSymbol)
      .sort((a, b) => a.name.localeCompare(b.name, "en"));
    for (const symbol of exported) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declarations = target.declarations ?? [];
      const origin = declarations[0]
        ? owningPackage(declarations[0].getSourceFile().fileName, packageCache)
        : "?";
      const own = origin === entry.packageName;
      lines.push(`## ${symbol.name} (${kindOf(target)})`, "");
      if (!own) {
        reexported.push({ name: symbol.name, from: origin });
        lines.push(`Re-exported from \`${origin}\`.`, "");
      } else {
        if (!hasDocumentation(target, checker)) undocumented.push(symbol.name);
        const text = declarations.map(printDeclaration).join("\n\n");
        lines.push("```ts", text, "```", "");
      }
    }
    lines.push(`${exported.length} exported names.`, "");
    return {
      ...entry,
      names: exported.map((symbol) => symbol.name),
      text: lines.join("\n"),
      undocumented,
      reexported,
    };
  });
}

/** The reports that differ from the checked-in files, with a short line-level diff of each. */
export function compareApiReports(reports) {
  const differences = [];
  for (const report of reports) {
    const current = existsSync(report.reportFile) ? readFileSync(report.reportFile, "utf8") : undefined;
    if (current === report.text) continue;
    differences.push({ report, summary: describeChange(current, report.text) });
  }
  // A report whose entry point is gone is a difference too.
  const expected = new Set(reports.map((report) => report.reportFile));
  for (const packagePath of new Set(reports.map((report) => report.packagePath))) {
    const folder = join(packagePath, "api");
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder)) {
      const path = join(folder, file);
      if (file.endsWith(".api.md") && !expected.has(path))
        differences.push({
          report: { reportFile: path, importPath: relative(repositoryRoot, path) },
          summary: "  (no such entry point any more)",
        });
    }
  }
  return differences;
}

function describeChange(before, after) {
  if (before === undefined) return "  (no report checked in)";
  const beforeLines = new Set(before.split("\n"));
  const afterLines = new Set(after.split("\n"));
  const removed = [...beforeLines].filter((line) => line.trim() !== "" && !afterLines.has(line));
  const added = [...afterLines].filter((line) => line.trim() !== "" && !beforeLines.has(line));
  const shown = [...removed.map((line) => `  - ${line}`), ...added.map((line) => `  + ${line}`)];
  const limit = 40;
  return shown.length > limit
    ? [...shown.slice(0, limit), `  … ${shown.length - limit} more lines`].join("\n")
    : shown.join("\n");
}

/** The message `npm test` prints when the surface moved without its reports. */
export function differenceMessage(differences) {
  return [
    `[api-report] the public API differs from the checked-in report in ${differences.length} file(s):`,
    ...differences.map(
      ({ report, summary }) =>
        `${relative(repositoryRoot, report.reportFile).split(sep).join("/")}\n${summary}`,
    ),
    `If the change is deliberate, run \`${UPDATE_COMMAND}\` and commit the reports.`,
  ].join("\n");
}

export function writeApiReports(reports) {
  const expected = new Set(reports.map((report) => report.reportFile));
  for (const packagePath of new Set(reports.map((report) => report.packagePath))) {
    const folder = join(packagePath, "api");
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder))
      if (file.endsWith(".api.md") && !expected.has(join(folder, file))) rmSync(join(folder, file));
  }
  for (const report of reports) {
    mkdirSync(dirname(report.reportFile), { recursive: true });
    writeFileSync(report.reportFile, report.text);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const reports = buildApiReports();
  if (process.argv.includes("--update")) {
    const changed = compareApiReports(reports);
    writeApiReports(reports);
    console.log(`[api-report] ${reports.length} reports written, ${changed.length} changed`);
  } else {
    const differences = compareApiReports(reports);
    if (differences.length > 0) {
      console.error(differenceMessage(differences));
      process.exit(1);
    }
    console.log(`[api-report] ${reports.length} reports match the build`);
  }
  const undocumented = reports.filter((report) => report.undocumented.length > 0);
  for (const report of undocumented)
    console.error(`[api-report] ${report.importPath}: no doc comment on ${report.undocumented.join(", ")}`);
}

#!/usr/bin/env node
// Import circles inside each package (STYLE.md: data flows one way; a type several files need lives in its own file
// below them). Runs madge on every packages/*/src on its own, prints every circle of every package, and exits 1 when
// any package has one, so `npm run lint` fails on a new circle. Then checks that thread-core's spec/ imports
// nothing outside itself.
//
//   node scripts/circles.mjs             every package
//   node scripts/circles.mjs adapter-fs  the packages named
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import madge from "madge";

const packagesDirectory = fileURLToPath(new URL("../packages", import.meta.url));
const named = process.argv.slice(2);
const packages = readdirSync(packagesDirectory)
  .filter((name) => existsSync(join(packagesDirectory, name, "src")))
  .filter((name) => named.length === 0 || named.includes(name))
  .sort();

let circles = 0;
for (const name of packages) {
  const source = join(packagesDirectory, name, "src");
  const graph = await madge(source, { fileExtensions: ["ts", "tsx"] });
  // A circle among files another package imports by path (bench reads some sources so) is that package's own.
  const found = graph.circular().filter((circle) => !circle.some((file) => file.startsWith("../")));
  circles += found.length;
  if (found.length === 0) continue;
  console.log(`packages/${name}/src: ${found.length} import circle${found.length === 1 ? "" : "s"}`);
  for (const circle of found) console.log(`  ${[...circle, circle[0]].join(" > ")}`);
}
if (circles > 0) {
  console.log(`${circles} import circles. Cure: move what both sides need into a file below them.`);
  process.exit(1);
}
console.log(`No import circles in ${packages.length} packages.`);

// thread-core's spec/ is the contract and reads alone: its files name only each other, and zod (whose types a
// thread type's schema has). Biome's noRestrictedImports (biome.json) says so in the editor; this also catches
// the type-only `import("…")` expressions that rule does not see.
const specDirectory = join(packagesDirectory, "thread-core", "src", "spec");
if (named.length === 0 || named.includes("thread-core")) {
  const allowed = (specifier) => /^\.\/[^/]+\.js$/.test(specifier) || specifier === "zod";
  const leaks = [];
  for (const file of readdirSync(specDirectory).filter((name) => name.endsWith(".ts"))) {
    const text = readFileSync(join(specDirectory, file), "utf8");
    for (const [, specifier] of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm,
    )) {
      if (!allowed(specifier)) leaks.push(`  packages/thread-core/src/spec/${file} imports ${specifier}`);
    }
  }
  if (leaks.length > 0) {
    console.log(`thread-core's spec/ imports from outside itself (${leaks.length}):`);
    for (const leak of leaks) console.log(leak);
    console.log("Cure: declare the type in spec/, or an interface there that the engine implements.");
    process.exit(1);
  }
  console.log("thread-core's spec/ imports nothing outside itself.");
}

#!/usr/bin/env node
// Import circles inside each package (STYLE.md: data flows one way; a type several files need lives in its own file
// below them). Runs madge on every packages/*/src on its own, prints every circle of every package, and exits 1 when
// any package has one, so `npm run lint` fails on a new circle.
//
//   node scripts/circles.mjs             every package
//   node scripts/circles.mjs adapter-fs  the packages named
import { existsSync, readdirSync } from "node:fs";
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

// What `npm publish` would ship, checked from `npm pack --dry-run`: the license, the README, the built code,
// the sources its source maps point at, and nothing else; and the fields a registry page shows.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type PublicPackage, publicPackages, readManifest } from "./public-packages.js";
import { repositoryRoot } from "./readme-blocks.js";

const packages = publicPackages();
const root = readManifest(repositoryRoot);
const rootLicense = readFileSync(join(repositoryRoot, "LICENSE"), "utf8");

/** The files `npm pack` would put in the tarball, relative to the package's folder. */
async function packedFiles(entry: PublicPackage): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", "--dry-run", "--json", "--ignore-scripts", "--loglevel=error"],
    { cwd: entry.path, maxBuffer: 64 * 1024 * 1024 },
  );
  const [report] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return report.files.map((file) => file.path).sort();
}

/** What a tarball may hold: its manifest, README, LICENSE, the build, the sources maps point at, a bin. */
const ALLOWED = /^(package\.json|README\.md|LICENSE|dist\/.+|src\/.+\.(ts|tsx|css)|bin\/[^/]+\.js)$/;
const STRAY = /(\.test\.tsx?$|(^|\/)(test|tests|__tests__|fixtures|node_modules)\/|\.tsbuildinfo$|(^|\/)\.)/;

/** Every file an `exports` entry or a bin points at. */
function entryPoints(entry: PublicPackage): string[] {
  const targets: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === "string") targets.push(normalize(value));
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(entry.manifest.exports);
  walk(entry.manifest.bin);
  return targets;
}

describe("the LICENSE", () => {
  it("is at the root, MIT as every package.json says", () => {
    expect(rootLicense).toMatch(/^MIT License\n/);
    expect(root.license).toBe("MIT");
  });
});

describe.each(packages.map((entry) => [entry.manifest.name, entry] as const))("%s", (_name, entry) => {
  it("packs its LICENSE, README and build, the sources its maps point at, and nothing stray", async () => {
    const files = await packedFiles(entry);
    expect(files).toContain("LICENSE");
    expect(files).toContain("README.md");
    expect(files).toContain("package.json");
    expect(files.filter((file) => !ALLOWED.test(file) || STRAY.test(file))).toEqual([]);
    expect(readFileSync(join(entry.path, "LICENSE"), "utf8")).toBe(rootLicense);
    expect(entryPoints(entry).filter((target) => !files.includes(target))).toEqual([]);
    // A source map is only useful, and only quiet in bundlers, when the sources it names are shipped too.
    const missing: string[] = [];
    for (const map of files.filter((file) => file.endsWith(".map"))) {
      const { sources } = JSON.parse(readFileSync(join(entry.path, map), "utf8")) as { sources: string[] };
      for (const source of sources) {
        const shipped = normalize(join(dirname(map), source));
        if (!files.includes(shipped)) missing.push(`${map} → ${source}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("says where it comes from, its license and the Node it needs", () => {
    const { manifest } = entry;
    expect(manifest.license).toBe("MIT");
    expect(manifest.repository).toEqual({
      type: "git",
      url: root.repository?.url,
      directory: `packages/${entry.directory}`,
    });
    const home = (root.repository?.url ?? "").replace(/^git\+/, "").replace(/\.git$/, "");
    expect(manifest.homepage).toBe(`${home}/tree/main/packages/${entry.directory}#readme`);
    expect(manifest.bugs).toEqual(root.bugs);
    expect(manifest.engines?.node).toBe(">=20");
  });

  it("is ESM only, and its README says so", () => {
    const readme = readFileSync(join(entry.path, "README.md"), "utf8");
    expect(readme).toContain("ESM only");
    // Every entry point answers `import` only: no `require` or top-level `types` a CommonJS consumer could take.
    for (const [path, target] of Object.entries(entry.manifest.exports ?? {})) {
      if (path === "./package.json") continue;
      expect(Object.keys(target as object), path).toEqual(["import"]);
    }
  });

  it("checks its exports with publint and attw in npm run lint", () => {
    expect(entry.manifest.scripts?.lint).toBe("publint && attw --pack --profile esm-only");
  });
});

// `npx skein` in a fresh clone, after the README's first command (npm install && npm run build): npm links a
// bin at install time only if its file exists then (before any build) and only into the root's node_modules/.bin
// when the root depends on the package. Checked on what git holds, which is what a fresh clone gets.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { publicPackages, readManifest } from "./public-packages.js";
import { repositoryRoot } from "./readme-blocks.js";

const root = readManifest(repositoryRoot) as { devDependencies?: Record<string, string> };
const withBins = publicPackages().filter((entry) => Object.keys(entry.manifest.bin ?? {}).length > 0);

/** `git ls-files -s`: the mode git records for a path, or undefined when git does not hold it. */
function trackedMode(path: string): string | undefined {
  const line = execFileSync("git", ["ls-files", "-s", "--", path], { cwd: repositoryRoot, encoding: "utf8" });
  return line.split(" ")[0] || undefined;
}

describe("bins in a fresh clone", () => {
  it("the CLI has one", () => {
    expect(withBins.map((entry) => entry.manifest.name)).toContain("@skein/cli");
  });

  describe.each(withBins.map((entry) => [entry.manifest.name, entry] as const))("%s", (name, entry) => {
    it("the root depends on the package, so npm links its bins into node_modules/.bin", () => {
      expect(root.devDependencies?.[name]).toBe("0.0.0");
    });

    it.each(Object.entries(entry.manifest.bin ?? {}))(
      "bin %s is a committed, executable node script",
      (_bin, target) => {
        const path = join("packages", entry.directory, normalize(target));
        expect(trackedMode(path), `${path} must be in git, not built`).toBe("100755");
        expect(readFileSync(join(repositoryRoot, path), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
      },
    );
  });
});

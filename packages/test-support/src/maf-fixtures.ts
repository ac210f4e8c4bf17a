import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The Microsoft Agent Framework fixtures (`shared/fixtures/maf`, written by MAF's own code, never edited here):
 * `SKEIN_MAF_FIXTURES`, or the first `shared/fixtures/maf` found beside this checkout or a folder above it
 * (a worktree sits deeper than the main checkout).
 */
function fixturesDirectory(): string {
  const given = process.env.SKEIN_MAF_FIXTURES;
  if (given) return given;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, "shared", "fixtures", "maf");
    if (existsSync(join(candidate, "README.md"))) return candidate;
    const parent = dirname(directory);
    if (parent === directory)
      throw new Error("MAF fixtures not found: set SKEIN_MAF_FIXTURES to the shared/fixtures/maf folder");
    directory = parent;
  }
}

/** The folder of the MAF fixtures. */
export const MAF_FIXTURES = fixturesDirectory();

/** A MAF fixture file's path. */
export function mafFixturePath(path: string): string {
  return join(MAF_FIXTURES, path);
}

/** A MAF fixture file's text. */
export function mafFixtureText(path: string): string {
  return readFileSync(mafFixturePath(path), "utf8");
}

/** A MAF fixture file's bytes. */
export function mafFixtureBytes(path: string): Uint8Array {
  return readFileSync(mafFixturePath(path));
}

/** A JSON MAF fixture, parsed. */
export function mafFixtureJson(path: string): Record<string, unknown> {
  return JSON.parse(mafFixtureText(path)) as Record<string, unknown>;
}

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The MAF fixtures (`shared/fixtures/maf`, written by MAF's own code; never edited): `SKEIN_MAF_FIXTURES`, or the
 * first `shared/fixtures/maf` found beside this checkout or one of the folders above it.
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

export const FIXTURES = fixturesDirectory();

/** A fixture file's text. */
export function fixtureText(path: string): string {
  return readFileSync(join(FIXTURES, path), "utf8");
}

/** A fixture file's bytes. */
export function fixtureBytes(path: string): Uint8Array {
  return readFileSync(join(FIXTURES, path));
}

/** A JSON fixture, parsed. */
export function fixtureJson(path: string): Record<string, unknown> {
  return JSON.parse(fixtureText(path)) as Record<string, unknown>;
}

/** One fixed time for every import in a test, so that two imports of one document are equal. */
export const IMPORT_TIME = "2026-12-05T12:00:00.000Z";

import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { skein } from "./run-skein.js";

const made: string[] = [];
afterEach(async () => {
  for (const directory of made.splice(0)) await rm(directory, { recursive: true, force: true });
});

/** An empty working directory for one run of the CLI. */
async function emptyDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "skein-cli-paths-"));
  made.push(directory);
  return directory;
}

describe("a store path that holds no store", () => {
  it("skein ls on a typo says there is no store there (exit 6) and creates nothing", async () => {
    const cwd = await emptyDirectory();
    for (const args of [
      ["--store", "file:./typo", "ls"],
      ["show", "x", "--store", "file:./typo"],
      ["export", "--all", "--store", "file:./typo"],
    ]) {
      const result = await skein(args, { cwd });
      expect(result.code, args.join(" ")).toBe(6);
      expect(result.stderr).toBe(
        `skein: [adapter-fs] No store at ${join(cwd, "typo")}: the directory does not exist. Check the path, or create a store there (skein create, skein import, or open it without create: false).\n`,
      );
    }
    // The default store too, when no one made it: nothing appears in the working directory.
    expect((await skein(["ls"], { cwd })).code).toBe(6);
    expect(await readdir(cwd)).toEqual([]);
  });

  it("skein migrate from a path without a store fails (exit 6) and creates neither end", async () => {
    const cwd = await emptyDirectory();
    const result = await skein(["migrate", "--from", "file:./nonexistent", "--to", "file:./dest"], { cwd });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^skein: \[adapter-fs\] No store at .*nonexistent: /);
    expect(result.stdout).toBe("");
    expect(await readdir(cwd)).toEqual([]);
  });

  it("create and import make the store; migrate makes its destination; reads then find them", async () => {
    const cwd = await emptyDirectory();
    expect((await skein(["--store", "file:./made", "create", "--id", "a"], { cwd })).code).toBe(0);
    const exported = await skein(["--store", "file:./made", "export", "a"], { cwd });
    expect(exported.code).toBe(0);
    expect(
      (await skein(["--store", "file:./imported", "import", "-"], { cwd, input: exported.stdout })).code,
    ).toBe(0);
    const migrated = await skein(["migrate", "--from", "file:./made", "--to", "file:./copy", "--quiet"], {
      cwd,
    });
    expect(migrated.code, migrated.stderr).toBe(0);
    for (const store of ["made", "imported", "copy"]) {
      const listed = await skein(["--store", `file:./${store}`, "ls", "--json"], { cwd });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain('"a"');
    }
  });

  it("skein ls --store file: (no path) is refused (exit 6) and creates nothing in the working directory", async () => {
    const cwd = await emptyDirectory();
    const result = await skein(["ls", "--store", "file:"], { cwd });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('Invalid store URL "file:": it names no directory');
    expect(await readdir(cwd)).toEqual([]);
  });

  it("skein ls --store file:/proc/… ends with exit 6 (it looped in mkdir before)", async () => {
    const result = await skein(["ls", "--store", "file:/proc/skein-forbidden"]);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain("/proc/skein-forbidden");
  });

  it("skein create on a path it cannot make ends with a StoreDirectoryError line (exit 6)", async () => {
    const result = await skein(["create", "--store", "file:/proc/skein-forbidden"]);
    expect(result.code).toBe(6);
    expect(result.stderr).toBe(
      "skein: [adapter-fs] Cannot open the store at /proc/skein-forbidden: the file system refuses to create /proc/skein-forbidden (ENOENT). Use a directory this process may create and write to.\n",
    );
  });
});

describe("skein export --out", () => {
  it("into a folder that does not exist ends with one line and exit 3, not an unhandled 'error' event", async () => {
    const cwd = await emptyDirectory();
    expect((await skein(["--store", "file:./s", "create", "--id", "a"], { cwd })).code).toBe(0);
    const out = join(cwd, "missing-dir", "x.jsonl");
    const result = await skein(["--store", "file:./s", "export", "--all", "--out", out], { cwd });
    expect(result.stderr).toBe(
      `skein: cannot write --out ${out}: the directory ${join(cwd, "missing-dir")} does not exist\n`,
    );
    expect(result.code).toBe(3);
    expect((await readdir(cwd)).sort()).toEqual(["s"]);
  });
});

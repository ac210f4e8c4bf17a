import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../src/cli/exit-codes.js";
import { skein, skeinOk } from "./run-skein.js";

const project = mkdtempSync(join(tmpdir(), "skein-cli-config-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const PACKAGES = fileURLToPath(new URL("../..", import.meta.url));

/**
 * A project as a user has one: skein's packages installed in its node_modules (links to this repository's),
 * and a third-party store package, @acme/skein-notes, installed beside them with a package.json whose
 * `exports` names its entry. Importing it registers the `notes:` scheme.
 */
function makeProject(): void {
  mkdirSync(join(project, "node_modules", "@skein"), { recursive: true });
  for (const name of ["thread-core", "adapter-fs"]) {
    symlinkSync(join(PACKAGES, name), join(project, "node_modules", "@skein", name), "dir");
  }
  const acme = join(project, "node_modules", "@acme", "skein-notes");
  mkdirSync(join(acme, "dist"), { recursive: true });
  writeFileSync(
    join(acme, "package.json"),
    JSON.stringify({
      name: "@acme/skein-notes",
      version: "1.0.0",
      type: "module",
      exports: { ".": { import: "./dist/index.js" } },
    }),
  );
  writeFileSync(
    join(acme, "dist", "index.js"),
    `import { FsLogDriver } from "@skein/adapter-fs";
import { defineLogStore } from "@skein/thread-core/driver";

function notesDriver(directory) {
  const inner = new FsLogDriver({ directory });
  return new Proxy(inner, {
    get(target, property) {
      if (property === "nativeType") return "acme.notes";
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export const { threadType: notesThreadType, store: notesStore, adapter: notesAdapter } = defineLogStore({
  type: "acme.notes",
  packageName: "@acme/skein-notes",
  schemes: ["notes"],
  createDriver: (options) => notesDriver(options.directory),
  optionsFromUrl: (url, options) => ({ directory: decodeURIComponent(url.pathname), ...options }),
  describe: (options) => "notes:" + options.directory,
});
`,
  );
}

function writeConfig(directory: string, content: string): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, "skein.config.json");
  writeFileSync(file, content);
  return file;
}

makeProject();

describe("skein.config.json", () => {
  it("loads the adapters it names, found from the working directory upward, and opens their schemes", async () => {
    const store = `notes:${join(project, "data")}`;
    const nested = join(project, "app", "deep");
    mkdirSync(nested, { recursive: true });
    const before = await skein(["ls", "--store", store], { cwd: nested });
    expect(before.code).toBe(EXIT_CODES.store);
    expect(before.stderr).toContain('unknown scheme "notes:"');

    writeConfig(project, JSON.stringify({ adapters: ["@acme/skein-notes"] }));
    const created = JSON.parse(await skeinOk(["create", "--json", "--store", store], { cwd: nested }));
    expect(created.type).toBe("acme.notes");
    await skeinOk(["append", created.id, "--text", "hello", "--store", store], { cwd: nested });
    const shown = await skeinOk(["show", created.id, "--store", store], { cwd: nested });
    expect(shown).toContain("hello");
  });

  it("takes a file given by --config (or SKEIN_CONFIG), its module paths relative to the file", async () => {
    const elsewhere = join(project, "configs", "one");
    const file = writeConfig(
      elsewhere,
      JSON.stringify({ adapters: ["../../node_modules/@acme/skein-notes/dist/index.js"] }),
    );
    const store = `notes:${join(project, "data-two")}`;
    const created = JSON.parse(
      await skeinOk(["create", "--json", "--config", file, "--store", store], { cwd: tmpdir() }),
    );
    expect(created.type).toBe("acme.notes");
    process.env.SKEIN_CONFIG = file;
    try {
      const listed = await skeinOk(["ls", "--json", "--store", store], { cwd: tmpdir() });
      expect(listed).toContain(created.id);
    } finally {
      delete process.env.SKEIN_CONFIG;
    }
  });

  it("loads the types it names, relative to the file", async () => {
    const directory = join(project, "typed");
    writeFileSync(
      join(project, "acme-types.mjs"),
      `import { defineStateType } from "@skein/thread-core";
import { z } from "zod";
export const ticket = defineStateType({ type: "notes.ticket", version: 1, schema: z.object({ title: z.string() }) });
`,
    );
    mkdirSync(join(project, "node_modules"), { recursive: true });
    symlinkSync(join(PACKAGES, "..", "node_modules", "zod"), join(project, "node_modules", "zod"), "dir");
    writeConfig(directory, JSON.stringify({ types: ["../acme-types.mjs"] }));
    const schema = await skeinOk(["schema", "--store", "memory:"], { cwd: directory });
    expect(schema).toContain("notes.ticket");
  });

  it("names the file and what is wrong when it is missing, not JSON, or holds an unknown key", async () => {
    const missing = await skein(["ls", "--config", join(project, "nope.json"), "--store", "memory:"]);
    // As an input file: a missing one is 3, one that is not JSON or not a config 5; 2 is the command line's.
    expect(missing.code).toBe(EXIT_CODES.notFound);
    expect(missing.stderr).toContain(join(project, "nope.json"));
    expect(missing.stderr).toContain("there is no such file");

    const broken = writeConfig(join(project, "broken"), "{ adapters: [");
    const notJson = await skein(["ls", "--config", broken, "--store", "memory:"]);
    expect(notJson.code).toBe(EXIT_CODES.invalidData);
    expect(notJson.stderr).toContain("is not JSON");

    const typo = writeConfig(join(project, "typo"), JSON.stringify({ adaptors: ["x"] }));
    const unknown = await skein(["ls", "--store", "memory:"], { cwd: dirname(typo) });
    expect(unknown.code).toBe(EXIT_CODES.invalidData);
    expect(unknown.stderr).toContain('unknown key "adaptors"');

    const wrong = writeConfig(join(project, "wrong"), JSON.stringify({ adapters: "@acme/skein-notes" }));
    const notList = await skein(["ls", "--store", "memory:"], { cwd: dirname(wrong) });
    expect(notList.code).toBe(EXIT_CODES.invalidData);
    expect(notList.stderr).toContain('"adapters" must be an array');
  });

  it("says which adapter cannot be loaded and how to install it", async () => {
    const file = writeConfig(
      join(project, "missing-adapter"),
      JSON.stringify({ adapters: ["@acme/not-installed"] }),
    );
    const result = await skein(["ls", "--store", "memory:"], { cwd: dirname(file) });
    // As a store URL whose adapter package is not installed.
    expect(result.code).toBe(EXIT_CODES.store);
    expect(result.stderr).toContain('adapter "@acme/not-installed"');
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain("npm install @acme/not-installed");
  });
});

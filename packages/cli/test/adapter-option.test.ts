import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../src/cli/exit-codes.js";
import { skein, skeinOk } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-adapter-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const ACME = fileURLToPath(new URL("./adapters/acme-store.mjs", import.meta.url));

describe("skein --adapter", () => {
  it("opens a URL scheme that a store package given by --adapter registers", async () => {
    const store = `acmefs:${join(directory, "acme")}`;
    const refused = await skein(["ls", "--store", store]);
    expect(refused.code).toBe(EXIT_CODES.store);
    expect(refused.stderr).toContain('unknown scheme "acmefs:"');
    expect(refused.stderr).toContain("--adapter");

    const created = JSON.parse(await skeinOk(["--adapter", ACME, "create", "--json", "--store", store]));
    expect(created.type).toBe("acme.fs");
    const listed = JSON.parse(await skeinOk(["ls", "--json", "--adapter", ACME, "--store", store]));
    expect(listed.items ?? listed).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: created.id, type: "acme.fs" })]),
    );
  });

  it("says what to do when a package given by --adapter cannot be loaded", async () => {
    const result = await skein(["ls", "--adapter", "@acme/not-installed", "--store", "memory:"]);
    expect(result.code).toBe(EXIT_CODES.usage);
    expect(result.stderr).toContain("npm install @acme/not-installed");
  });
});

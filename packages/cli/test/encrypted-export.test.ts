import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-encrypted-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const SEALED = fileURLToPath(new URL("./adapters/sealed-store.mjs", import.meta.url));
const MARKER = "CLI-SEALED-MARKER";
const key = randomBytes(32);
// The runs below inherit it: the test store package reads its key from here.
process.env.SKEIN_TEST_SEALED_KEY = key.toString("hex");

describe("skein export --encrypted", () => {
  it("writes ciphertext with key ids that imports into a store with the same key; plain export stays the default", async () => {
    const source = `sealedfs:${join(directory, "source")}`;
    const created = JSON.parse(
      await skeinOk([
        "--adapter",
        SEALED,
        "--store",
        source,
        "create",
        "--json",
        "--id",
        "t",
        "--title",
        MARKER,
      ]),
    );
    expect(created.id).toBe("t");
    await skeinOk(["--adapter", SEALED, "--store", source, "append", "t", "--text", `hello ${MARKER}`]);

    const sealed = await skeinOk(["--adapter", SEALED, "--store", source, "export", "--encrypted", "t"]);
    expect(sealed).not.toContain(MARKER);
    expect(sealed).not.toContain(key.toString("hex"));
    expect(sealed).not.toContain(key.toString("base64"));
    expect(JSON.parse(sealed).$encrypted).toEqual({ keyIds: ["test-key"] });
    expect(await skeinOk(["--adapter", SEALED, "--store", source, "export", "t"])).toContain(MARKER);

    const target = `sealedfs:${join(directory, "target")}`;
    await skeinOk(["--adapter", SEALED, "--store", target, "import", "-"], { input: sealed });
    const copied = await skeinOk(["--adapter", SEALED, "--store", target, "export", "t"]);
    expect(copied).toContain(`hello ${MARKER}`);
    expect(JSON.parse(copied).title).toBe(MARKER);
  });

  it("refuses on a store that is not encrypted, saying so", async () => {
    const plain = `file:${join(directory, "plain")}`;
    await skeinOk(["--store", plain, "create", "--id", "p"]);
    const result = await skein(["--store", plain, "export", "--encrypted", "p"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("not encrypted");
  });
});

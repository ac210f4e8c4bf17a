import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "./temporary-directory.js";

describe("temporaryDirectory", () => {
  let madeByTheFirstTest: string[] = [];

  it("gives a new, empty directory under the system's temporary directory each time", async () => {
    const first = await temporaryDirectory("support");
    const second = await temporaryDirectory("support");
    expect(first).not.toBe(second);
    expect(dirname(first)).toBe(tmpdir());
    expect(basename(first)).toMatch(/^skein-support-/);
    await writeFile(join(first, "file"), "kept until the test ends");
    madeByTheFirstTest = [first, second];
    expect(madeByTheFirstTest.every((directory) => existsSync(directory))).toBe(true);
  });

  it("has removed the previous test's directories, files and all", () => {
    expect(madeByTheFirstTest).toHaveLength(2);
    for (const directory of madeByTheFirstTest) expect(existsSync(directory)).toBe(false);
  });
});

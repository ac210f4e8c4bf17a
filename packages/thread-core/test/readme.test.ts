import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);
const example = fileURLToPath(new URL("examples/quick-start.mjs", root));

describe("README quick start", () => {
  it("is the example file, verbatim", () => {
    const readme = readFileSync(new URL("README.md", root), "utf8");
    const block = readme.split("<!-- quick-start")[1]?.split("```ts\n")[1]?.split("```")[0];
    expect(block?.trimEnd()).toBe(readFileSync(example, "utf8").trimEnd());
  });

  it("runs and prints what it did", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [example], {
      env: { ...process.env, SKEIN_STORE: "memory:" },
    });
    expect(stdout.trim()).toBe("3 messages, 2 in view, fork has 5");
  });
});

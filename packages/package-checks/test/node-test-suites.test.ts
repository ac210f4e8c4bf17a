// `@skein/thread-core/testing` pins no test runner: the suites take the runner's `describe` and `it`. This runs the
// store-level suite under node:test, in a process without vitest (whose `describe` throws outside a vitest run),
// against the built package, and reads its dist for a vitest import.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const fixture = fileURLToPath(new URL("./node-test-suites.fixture.mjs", import.meta.url));

describe("@skein/thread-core/testing without vitest", () => {
  it("its build imports no vitest", () => {
    const entry = fileURLToPath(import.meta.resolve("@skein/thread-core/testing"));
    expect(readFileSync(entry, "utf8")).not.toMatch(/from\s*["']vitest["']/);
  });

  it("runs the conformance suite under node:test, every case passing", async () => {
    const { stdout } = await run(process.execPath, ["--test", "--test-reporter=tap", fixture], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(stdout)?.[1]);
    expect(count("fail")).toBe(0);
    expect(count("pass")).toBeGreaterThan(100);
  }, 300_000);
});

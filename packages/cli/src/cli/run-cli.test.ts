import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type CliIo, runCli } from "./run-cli.js";

/** Streams that keep what the run writes. */
function capture(stdin: Readable): { io: CliIo; stdout: () => string; stderr: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on("data", (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on("data", (chunk: Buffer) => chunks.stderr.push(chunk));
  return {
    io: { stdout, stderr, stdin, environment: {} },
    stdout: () => Buffer.concat(chunks.stdout).toString("utf8"),
    stderr: () => Buffer.concat(chunks.stderr).toString("utf8"),
  };
}

describe("runCli", () => {
  it("an error it did not foresee (stdin failing with a RangeError) exits 1 with one internal-error line, not 2", async () => {
    const stdin = new Readable({
      read() {
        this.destroy(new RangeError("Invalid string length"));
      },
    });
    const run = capture(stdin);
    const code = await runCli(["import", "-", "--store", "memory:"], run.io);
    expect(code).toBe(1);
    expect(run.stderr()).toBe(
      "skein: internal error: RangeError: Invalid string length; please report it with the command that caused it\n",
    );
    expect(run.stdout()).toBe("");
  });
});

describe("runCli's arguments", () => {
  it('runCli("ls") (a string, not an array) exits 2 with one line saying what it takes, never a TypeError', async () => {
    for (const wrong of ["ls", undefined, ["ls", 5]]) {
      const run = capture(Readable.from([]));
      const code = await runCli(wrong as unknown as string[], run.io);
      expect(code).toBe(2);
      expect(run.stderr()).toMatch(
        /^skein: runCli's command line must be an array of strings, such as runCli\(\["ls", "--limit", "5"\]\); it was (a string|undefined|an array holding something other than strings)\n$/,
      );
      expect(run.stdout()).toBe("");
    }
  });
});

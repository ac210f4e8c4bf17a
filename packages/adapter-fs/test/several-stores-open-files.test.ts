import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { expect, it } from "vitest";
import { collectOutput, exited } from "./child-process.js";

it.runIf(process.platform === "linux")(
  "keeps a quarter of the open-file limit idle across all stores of a process, not per store",
  async () => {
    const directory = join(await temporaryDirectory(), "stores");
    const script = fileURLToPath(new URL("./children/several-stores.ts", import.meta.url));
    // Five stores of 20 threads each, four files a thread: 400 files if each store kept its own budget of 64.
    // `ulimit` applies to the shell, and `exec` hands its limit to Node (which cannot set its own).
    const child = spawn(
      "sh",
      ["-c", 'ulimit -n 256 && exec "$0" --import tsx "$@"', process.execPath, script, directory, "5"],
      { cwd: fileURLToPath(new URL("../", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] },
    );
    const output = collectOutput(child);
    const code = await exited(child);
    expect(output.stderr()).not.toMatch(/EMFILE/);
    expect(code).toBe(0);
    const open = Number(output.stdout().trim());
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThanOrEqual(64);
  },
  60_000,
);

import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL("../", import.meta.url));
const reader = fileURLToPath(new URL("./children/chain-reader.ts", import.meta.url));

describe.skipIf(process.platform === "win32")("long chains of segments", () => {
  it("export and view of a 1,000-segment thread stay within 256 open files (macOS's default limit)", async () => {
    const directory = await temporaryDirectory();
    const { stdout } = await run(
      "sh",
      ["-c", 'ulimit -n 256 && exec "$0" --import tsx "$@"', process.execPath, reader, directory, "1000"],
      { cwd: packageRoot },
    );
    expect(stdout.split("\n")).toEqual(["exported 1000 segments", "viewed 1000 messages", ""]);
  }, 300_000);
});

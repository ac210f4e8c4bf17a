import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { FsLogDriver } from "../src/index.js";
import { collectOutput, exited } from "./child-process.js";

/** strace can stop a process at one exact system call; without it (or without ptrace) this test is skipped. */
const strace = spawnSync("strace", ["-qq", "-e", "trace=none", "true"]).status === 0;

describe("a new segment's segment.json", () => {
  it.skipIf(!strace)("is whole or absent when its maker is killed at its first write to it", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const driver = new FsLogDriver({ directory });
    await driver.list({ limit: 1 }); // makes the store's directories
    const segmentId = driver.newSegmentId();
    const description = join(driver.layout.segmentDirectory(segmentId), "segment.json");
    // SIGKILL at the first write to that path: the moment between creating the file and filling it.
    const child = spawn(
      "strace",
      [
        "-f",
        "-qq",
        "-P",
        description,
        "-e",
        "trace=write,pwrite64,writev",
        "-e",
        "inject=write,pwrite64,writev:signal=SIGKILL",
        process.execPath,
        "--import",
        "tsx",
        fileURLToPath(new URL("./children/segment-maker.ts", import.meta.url)),
        directory,
        segmentId,
      ],
      { cwd: fileURLToPath(new URL("../", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] },
    );
    const output = collectOutput(child);
    await exited(child);
    const text = await readFile(description, "utf8").catch(() => undefined);
    // Written directly, the file was left empty here and the segment read as damaged.
    if (text !== undefined) expect(JSON.parse(text)).toMatchObject({ id: segmentId });
    const info = await new FsLogDriver({ directory }).segment(segmentId);
    if (text === undefined) expect(info).toBeUndefined();
    else expect(output.stdout()).toBe("made\n");
    await driver.close();
  });
});

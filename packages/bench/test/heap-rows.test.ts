import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { StorageRow } from "../src/storage-scenario.js";

const run = promisify(execFile);

describe("the bench's heap rows", () => {
  it("a memory store keeps each message in at most 1.5x its raw JSON (issue 24)", async () => {
    const entry = fileURLToPath(new URL("../src/heap-check.ts", import.meta.url));
    const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", entry, "10000"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
    });
    const rows = JSON.parse(stdout) as StorageRow[];
    const store = rows.find((row) => row.subject === "skein memory store, heap");
    expect(store, stdout).toBeDefined();
    expect(store?.ratio).toBeLessThanOrEqual(1.5);
  });
});

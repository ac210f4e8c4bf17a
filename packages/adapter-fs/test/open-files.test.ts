import { spawn } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import type { LogRecord, SegmentInfo } from "@skein/thread-core/driver";
import { normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";
import { MAX_OPEN_FILES } from "../src/segments/segment-file-cache.js";
import { collectOutput, exited } from "./child-process.js";

const message = (id: string): Message => normalizeMessage({ id, role: "user", text: id });

async function newThread(driver: FsLogDriver, id: string, headId: string): Promise<LogRecord> {
  const now = new Date().toISOString();
  const head: SegmentInfo = { id: headId, base: null, start: 0, createdAt: now };
  const record: LogRecord = {
    kind: "log",
    id,
    type: "fs",
    createdAt: now,
    updatedAt: now,
    revision: 0,
    metadata: {},
    context: {},
    head: head.id,
    length: 0,
    events: [],
  };
  await driver.createLog(record, head);
  return record;
}

/** This process's open files under `directory`. */
function openFilesUnder(directory: string): number {
  return readdirSync("/proc/self/fd").filter((descriptor) => {
    try {
      return readlinkSync(`/proc/self/fd/${descriptor}`).startsWith(`${directory}/segments/`); // the catalogue journal, one file, aside
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

describe("the segment files a store keeps open", () => {
  it.runIf(process.platform === "linux")(
    "appends to 100 threads at once in a process limited to 256 open files, holding at most 64 of them",
    async () => {
      const directory = join(await temporaryDirectory(), "store");
      const script = fileURLToPath(new URL("./children/concurrent-threads.ts", import.meta.url));
      // `ulimit` applies to the shell, and `exec` hands its limit to Node (which cannot set its own).
      const child = spawn(
        "sh",
        [
          "-c",
          'ulimit -n 256 && exec "$0" --import tsx "$@"',
          process.execPath,
          script,
          directory,
          "100",
          "20",
        ],
        { cwd: fileURLToPath(new URL("../", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] },
      );
      const output = collectOutput(child);
      const code = await exited(child);
      expect(output.stderr()).not.toMatch(/EMFILE/);
      expect(code).toBe(0);
      const [count, open] = output.stdout().trim().split("\n").map(Number);
      expect(count).toBe(2000);
      // A quarter of its limit: the files it kept open between appends, for the threads written last.
      expect(open).toBeGreaterThan(0);
      expect(open).toBeLessThanOrEqual(64);
    },
  );

  it.runIf(process.platform === "linux")(
    "keeps at most MAX_OPEN_FILES of them open, however many threads it wrote, and none after close",
    async () => {
      const directory = join(await temporaryDirectory(), "store");
      const store = fsStore({ directory });
      const threads = Math.ceil(MAX_OPEN_FILES / 4) + 8;
      for (let index = 0; index < threads; index++)
        await (await store.create()).append({ role: "user", text: "hi" });
      // Closes of files let go run in the background: give them a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const open = openFilesUnder(directory);
      expect(open).toBeGreaterThan(MAX_OPEN_FILES / 2);
      expect(open).toBeLessThanOrEqual(MAX_OPEN_FILES);
      await store.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(openFilesUnder(directory)).toBe(0);
    },
  );

  it.runIf(process.platform === "linux")(
    "leaves no file open when the store is closed while reads are under way",
    async () => {
      const directory = join(await temporaryDirectory(), "store");
      const store = fsStore({ directory });
      const threads = await Promise.all(Array.from({ length: 20 }, () => store.create()));
      for (const thread of threads) await thread.append({ role: "user", text: "hi" });
      await store.close();
      // A second store on the directory, closed while its first reads are under way.
      const reopened = fsStore({ directory });
      const reads = threads.map(async (thread) => {
        const again = await reopened.get(thread.id);
        return again.messages();
      });
      await new Promise((resolve) => setImmediate(resolve));
      await reopened.close();
      await Promise.allSettled(reads);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(openFilesUnder(directory)).toBe(0);
    },
  );

  it("writes into a segment made anew under a reclaimed segment's id, not into the removed files", async () => {
    const directory = await temporaryDirectory();
    const driver = new FsLogDriver({ directory });
    const first = await newThread(driver, "t", "seg_reused");
    await driver.commit("t", { expectHead: first.head, append: [message("a"), message("b")] });
    expect(await driver.delete("t")).toBe(true);
    // The same segment id again (as an import of the same chain would make it): a new directory and files.
    const again = await newThread(driver, "t", "seg_reused");
    const result = await driver.commit("t", { expectHead: again.head, append: [message("c")] });
    expect(result.record).toMatchObject({ length: 1, revision: 1 });
    const reader = new FsLogDriver({ directory });
    expect((await reader.readSegment("seg_reused", 0, 10)).map((value) => value.id)).toEqual(["c"]);
    expect((await driver.readSegment("seg_reused", 0, 10)).map((value) => value.id)).toEqual(["c"]);
    await Promise.all([driver.close(), reader.close()]);
  });
});

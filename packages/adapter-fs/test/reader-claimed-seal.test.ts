import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";
import { claimSeal, sealState } from "../src/takeover/head-seal.js";

// A taker that claimed a head's seal and stopped before publishing its end holds the thread's lock as a
// record writer, which is never taken over: readers must not need that lock to read the thread.
describe("a reader of a head whose taker stopped between claiming the seal and publishing its end", () => {
  it("publishes the end itself and reads, without the lock the stopped taker holds", async () => {
    const directory = await temporaryDirectory();
    const writer = fsStore({ directory });
    const thread = await writer.create({ id: "t" });
    await thread.append({ id: "a", role: "user", text: "a" });
    await writer.close();
    const driver = new FsLogDriver({ directory, lockTimeoutMs: 300 });
    const record = await driver.read("t");
    if (record?.kind !== "log") throw new Error("no log");
    // The taker B: claimed the seal, then stopped holding its "record" lock (a live process: this one).
    claimSeal(driver.layout.segmentDirectory(record.head));
    const started = readFileSync("/proc/self/stat", "utf8");
    writeFileSync(
      driver.layout.threadLockPath("t"),
      JSON.stringify({
        pid: process.pid,
        hostname: hostname(),
        nonce: "0".repeat(24),
        writes: "record",
        acquiredAt: new Date().toISOString(),
        started: started.slice(started.lastIndexOf(")") + 2).split(" ")[19],
      }),
    );
    const reader = fsStore({ directory, lockTimeoutMs: 300 });
    const messages = await (await reader.get("t")).messages();
    expect(messages.map((message) => message.id)).toEqual(["a"]);
    expect(sealState(driver.layout.segmentDirectory(record.head))).toEqual({ state: "sealed", count: 1 });
    await reader.close();
  });
});

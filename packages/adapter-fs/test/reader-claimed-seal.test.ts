import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";
import { claimSeal, sealState } from "../src/takeover/head-seal.js";

const message = (id: string) => normalizeMessage({ id, role: "user", text: id });

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

  it("counts every acknowledged commit, though the record it read first is outdated (it reads the record again)", async () => {
    const directory = await temporaryDirectory();
    const clear = fsStore({ directory });
    await clear.create({ id: "t" });
    await clear.close();
    const writer = new FsLogDriver({ directory });
    const first = await writer.records.read("t");
    if (first?.kind !== "log") throw new Error("no log record t");
    await writer.commit("t", { expectHead: first.head, append: [message("a")] });
    const outdated = await writer.records.read("t");
    // A record writer's commit on the same head: its entries are guarded, counting once the record has their
    // revision, so a reader holding the record before it does not count them.
    await writer.commit("t", { expectHead: first.head, append: [message("b")], metadata: { title: "b" } });
    await writer.close();
    // A writer took the thread's lock over and claimed the head's seal, then stopped before publishing it.
    const segment = writer.layout.segmentDirectory(first.head);
    claimSeal(segment);
    const reader = new FsLogDriver({ directory });
    // The reader read the record just before that commit's rename (as a reader without the lock may).
    const read = reader.records.read.bind(reader.records);
    let calls = 0;
    reader.records.read = (id) => (calls++ === 0 ? Promise.resolve(outdated) : read(id));
    try {
      expect(await reader.read("t")).toMatchObject({ kind: "log", length: 2 });
      expect(sealState(segment)).toMatchObject({ state: "sealed", count: 2 });
    } finally {
      await reader.close();
    }
  });
});

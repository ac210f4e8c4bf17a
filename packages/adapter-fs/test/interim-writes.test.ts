import { open, readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import { type LogRecord, normalizeMessage, type SegmentInfo } from "@skein/thread-core/driver";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CorruptStoreError } from "../src/errors.js";
import { FsLogDriver } from "../src/index.js";
import { DurableFiles } from "../src/records/durable-files.js";

/** As thread-core reads a reply's batches: all of them. */
const ALL = 2 ** 31 - 1;
const batch = (index: number): Message =>
  normalizeMessage({ id: `batch-${index}`, role: "assistant", text: `delta ${index} `.repeat(200) });

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts every real flush to disk (fsync and fdatasync of any file or directory), whoever asks for it. */
async function countDiskFlushes(directory: string): Promise<() => number> {
  const probe = await open(join(directory, "skein-fs.json"), "r");
  const fileHandle = Object.getPrototypeOf(probe);
  await probe.close();
  const flushes = [vi.spyOn(fileHandle, "sync"), vi.spyOn(fileHandle, "datasync")];
  return () => flushes.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
}

async function newThread(driver: FsLogDriver, id: string): Promise<LogRecord> {
  const now = new Date().toISOString();
  const head: SegmentInfo = { id: driver.newSegmentId(), base: null, start: 0, createdAt: now };
  const record: LogRecord = {
    ...{ kind: "log", id, type: "fs", createdAt: now, updatedAt: now, revision: 0 },
    ...{ metadata: {}, context: {}, head: head.id, length: 0, events: [] },
  };
  await driver.createLog(record, head);
  return record;
}

function replySegment(driver: FsLogDriver): SegmentInfo {
  return { id: driver.newSegmentId(), base: null, start: 0, createdAt: new Date().toISOString() };
}

describe("interim writes of a streamed reply (fs)", () => {
  it("writes a reply's batches without a flush, visible at once to another process's driver", async () => {
    const directory = await temporaryDirectory("fs-interim-batches");
    const driver = new FsLogDriver({ directory });
    await newThread(driver, "t");
    const segment = replySegment(driver);
    const flushes = await countDiskFlushes(directory);
    await driver.importSegment(segment, [batch(0)], 0, { interim: true });
    await driver.importSegment(segment, [batch(1)], 1, { interim: true });
    // Before: the segment's making flushed its files and directories, and each batch two fdatasyncs.
    expect(flushes()).toBe(0);
    const other = new FsLogDriver({ directory });
    expect((await other.readSegment(segment.id, 0, ALL)).map((message) => message.id)).toEqual([
      "batch-0",
      "batch-1",
    ]);
    // The count is of real flushes: the same batches written durably take some.
    const durable = replySegment(driver);
    await driver.importSegment(durable, [batch(0)], 0);
    expect(flushes()).toBeGreaterThan(0);
    await Promise.all([driver.close(), other.close()]);
  });

  it("flushes an interim begin's record but not its directory; the end's commit flushes both", async () => {
    const directory = await temporaryDirectory("fs-interim-begin");
    const driver = new FsLogDriver({ directory });
    const thread = await newThread(driver, "t");
    // A new thread's first record change moves its history out of the record, durably (a file the record names).
    const named = await driver.commit("t", { expectHead: thread.head, metadata: { topic: "interim" } });
    const directories = vi.spyOn(DurableFiles.prototype, "syncDirectory");
    const flushes = await countDiskFlushes(directory);
    const entry = { streams: [{ id: "reply", segment: "seg_reply" }] };
    const begun = await driver.commit("t", {
      expectHead: thread.head,
      known: named.record,
      context: entry,
      interim: true,
    });
    // The record's own content only: a power loss leaves the record before or after, whole.
    expect(flushes()).toBe(1);
    expect(directories).not.toHaveBeenCalled();
    const reread = (await new FsLogDriver({ directory }).read("t")) as LogRecord;
    expect(reread.context).toEqual(entry);
    const reply = normalizeMessage({ id: "reply", role: "assistant", text: "whole" });
    await driver.commit("t", { expectHead: thread.head, known: begun.record, context: {}, append: [reply] });
    expect(directories).toHaveBeenCalledWith(driver.layout.recordPath("t").replace(/\/[^/]+$/, ""));
    await driver.close();
  });

  it("reads an interim segment that a power loss damaged as its batches before the damage", async () => {
    const directory = await temporaryDirectory("fs-interim-damage");
    const driver = new FsLogDriver({ directory });
    await newThread(driver, "t");
    const interim = replySegment(driver);
    const durable = replySegment(driver);
    for (const index of [0, 1, 2]) {
      await driver.importSegment(interim, [batch(index)], index, { interim: true });
      await driver.importSegment(durable, [batch(index)], index);
    }
    // As the disk may hold them after a power loss: the index's third entry kept, its line cut short.
    for (const segment of [interim, durable]) {
      const log = join(driver.layout.segmentDirectory(segment.id), "messages.jsonl");
      await truncate(log, (await readFile(log)).length - 100);
    }
    const reader = new FsLogDriver({ directory });
    const read = await reader.readSegment(interim.id, 0, ALL);
    expect(read.map((message) => message.id)).toEqual(["batch-0", "batch-1"]);
    // Its description unflushed too (empty after the power loss): still read up to the damage.
    await writeFile(join(driver.layout.segmentDirectory(interim.id), "segment.json"), "");
    const again = new FsLogDriver({ directory });
    expect((await again.readSegment(interim.id, 1, ALL)).map((message) => message.id)).toEqual(["batch-1"]);
    // A segment written durably that reads damaged is damage, and says so.
    await expect(reader.readSegment(durable.id, 0, ALL)).rejects.toSatisfy((error) =>
      CorruptStoreError.isInstance(error),
    );
    await Promise.all([driver.close(), reader.close(), again.close()]);
  });
});

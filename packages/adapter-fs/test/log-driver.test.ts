import { readFile, writeFile } from "node:fs/promises";
import {
  ConcurrencyError,
  ConflictError,
  type LogRecord,
  type Message,
  normalizeMessage,
  type SegmentInfo,
  StoreClosedError,
  ThreadExistsError,
} from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { FsLogDriver } from "../src/index.js";
import { temporaryDirectory } from "./temporary-directory.js";

const message = (id: string, text = id): Message => normalizeMessage({ id, role: "user", text });
const ids = (messages: Message[]) => messages.map((value) => value.id);

async function newThread(driver: FsLogDriver, id: string): Promise<LogRecord> {
  const now = new Date().toISOString();
  const head: SegmentInfo = { id: driver.newSegmentId(), base: null, start: 0, createdAt: now };
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

describe("FsLogDriver", () => {
  it("returns messages as stored, and answers ids the head holds with them, writing nothing", async () => {
    const driver = new FsLogDriver({ directory: await temporaryDirectory() });
    const record = await newThread(driver, "t");
    await expect(newThread(driver, "t")).rejects.toBeInstanceOf(ThreadExistsError);
    const first = await driver.commit("t", { expectHead: record.head, append: [message("a")] });
    expect(first.record).toMatchObject({ revision: 1, length: 1 });
    const retried = { ...message("a"), createdAt: "2020-01-01T00:00:00.000Z" };
    const again = await driver.commit("t", {
      expectHead: record.head,
      append: [message("b"), retried],
      metadata: { step: 2 },
    });
    expect(again.held).toEqual(first.messages);
    expect(await driver.read("t")).toMatchObject({ revision: 1, length: 1, metadata: {} });
    const next = await driver.commit("t", { expectHead: record.head, append: [message("b")] });
    expect(next.held).toBeUndefined();
    expect(next.record).toMatchObject({ revision: 2, length: 2 });
    await expect(driver.commit("t", { expectHead: record.head, ifRevision: 1 })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    expect(ids(await driver.readSegment(record.head, 0, 10))).toEqual(["a", "b"]);
    await driver.close();
  });

  it("makes an append and a record change in one commit visible together, or not at all", async () => {
    const directory = await temporaryDirectory();
    const driver = new FsLogDriver({ directory });
    const record = await newThread(driver, "t");
    await driver.commit("t", { expectHead: record.head, append: [message("a")] });
    const recordPath = driver.layout.recordPath("t");
    const before = await readFile(recordPath);
    const both = await driver.commit("t", {
      expectHead: record.head,
      append: [message("b"), message("c")],
      metadata: { step: 2 },
    });
    expect(both.record).toMatchObject({ length: 3, revision: 2, metadata: { step: 2 } });
    expect(await driver.read("t")).toMatchObject({ length: 3, revision: 2, metadata: { step: 2 } });

    // As if the writer had died after the entries and before the record: the appended messages do not count.
    await writeFile(recordPath, before);
    const reader = new FsLogDriver({ directory });
    expect(await reader.read("t")).toMatchObject({ length: 1, revision: 1, metadata: {} });
    const next = await reader.commit("t", { expectHead: record.head, append: [message("d")] });
    expect(next.record).toMatchObject({ length: 2, revision: 2 });
    expect(ids(await reader.readSegment(record.head, 0, 10))).toEqual(["a", "d"]);
    await Promise.all([driver.close(), reader.close()]);
  });

  it("imports segments by the LogDriver rules", async () => {
    const driver = new FsLogDriver({ directory: await temporaryDirectory() });
    const info: SegmentInfo = {
      id: "imported/../segment",
      base: null,
      start: 0,
      createdAt: new Date().toISOString(),
    };
    await driver.importSegment(info, [message("a"), message("b")], 0);
    await driver.importSegment(info, [message("b"), message("c")], 1);
    await driver.importSegment(info, [message("a")], 0);
    expect(ids(await driver.readSegment(info.id, 0, 10))).toEqual(["a", "b", "c"]);
    expect(await driver.segment(info.id)).toEqual(info);
    await expect(driver.importSegment(info, [message("x")], 0)).rejects.toBeInstanceOf(ConflictError);
    await expect(driver.importSegment(info, [message("z")], 5)).rejects.toThrow(/gap/);
    await expect(driver.importSegment({ ...info, id: "other" }, [message("a")], 2)).rejects.toThrow(
      /missing/,
    );
    const record = await newThread(driver, "live");
    await expect(
      driver.importSegment({ ...info, id: record.head }, [message("intruder")], 0),
    ).rejects.toThrow(/live thread's head/);
    expect(await driver.readSegment(record.head, 0, 10)).toEqual([]);
    expect(await driver.locate(info.id, "c", 3)).toEqual({ offset: 2 });
    expect(await driver.locate(info.id, "c", 2)).toBeUndefined();
    await driver.close();
  });

  it("keeps states apart from logs, with their own revisions", async () => {
    const driver = new FsLogDriver({ directory: await temporaryDirectory(), durability: "batch" });
    await newThread(driver, "log");
    await expect(driver.putState("log", { $type: "x", id: "log" })).rejects.toBeInstanceOf(ConflictError);
    expect((await driver.putState("state", { $type: "x", id: "state" })).revision).toBe(1);
    await expect(
      driver.putState("state", { $type: "x", id: "state" }, { ifRevision: 0 }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await driver.putState("state", { $type: "y", id: "state" }, { ifRevision: 1 })).toMatchObject({
      revision: 2,
      state: { $type: "y" },
    });
    expect(await driver.list({ limit: 10 })).toMatchObject([
      { id: "log", type: "fs" },
      { id: "state", type: "y" },
    ]);
    await driver.close();
    await expect(driver.read("state")).rejects.toBeInstanceOf(StoreClosedError);
  });
});

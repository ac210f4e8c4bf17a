import { readFile, writeFile } from "node:fs/promises";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { ConcurrencyError, type Message } from "@skein/thread-core";
import type { LogRecord, SegmentInfo } from "@skein/thread-core/driver";
import { normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { SOURCE } from "../src/errors.js";
import { FsLogDriver } from "../src/index.js";

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

// The LogDriver contract itself runs in log-driver-suite.test.ts; these are the fs driver's own promises.
describe("FsLogDriver", () => {
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

  it("refuses a delete at a stale revision as the fs store, against the head's live revision", async () => {
    const directory = await temporaryDirectory();
    const driver = new FsLogDriver({ directory });
    const record = await newThread(driver, "t");
    // The append moves the head's revision on; the record file stays at revision 0.
    await driver.commit("t", { expectHead: record.head, append: [message("a")] });
    const refused = await driver.delete("t", { ifRevision: 0 }).catch((error: unknown) => error);
    expect(ConcurrencyError.isInstance(refused)).toBe(true);
    expect((refused as ConcurrencyError).source).toBe(SOURCE);
    expect((refused as Error).message).toMatch(/^\[adapter-fs\] .*revision 1, not 0/);
    expect(await driver.read("t")).toMatchObject({ revision: 1, length: 1 });
    expect(await driver.delete("t", { ifRevision: 1 })).toBe(true);
    expect(await driver.read("t")).toBeUndefined();
    await driver.close();
  });
});

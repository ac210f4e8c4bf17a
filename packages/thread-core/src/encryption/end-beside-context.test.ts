import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CommitResult, LogChange, LogDriver, LogRecord, StoredRecord } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import { caught } from "../testing/suite-context.js";
import { encryptedStoreOver } from "./encrypted-test-store.js";
import { IntegrityError } from "./encryption-errors.js";
import { END_FIELD } from "./record-end.js";

const keys = { "2026-12": randomBytes(32) };

/** A memory backend that keeps the changes it is sent, and can show records and segments cut short. */
class WatchedMemoryDriver extends MemoryLogDriver {
  readonly changes: LogChange[] = [];
  cut = 0;
  override commit(id: string, change: LogChange): Promise<CommitResult> {
    this.changes.push(change);
    return super.commit(id, change);
  }
  withoutEnd = false;
  override async read(id: string): Promise<StoredRecord | undefined> {
    const record = await super.read(id);
    if (record?.kind !== "log") return record;
    const { end, ...rest } = record;
    return { ...rest, length: record.length - this.cut, ...(this.withoutEnd ? {} : { end }) };
  }
  override async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    const all = await super.readSegment(id, 0, Number.MAX_SAFE_INTEGER);
    return all.slice(0, all.length - this.cut).slice(from, to);
  }
}

const storeOver = (driver: LogDriver) => encryptedStoreOver(driver, keys, "2026-12");

describe("an encrypted append over a driver that keeps the end beside the context", () => {
  it("sends the sealed message and the end, and leaves the record's context alone", async () => {
    const inner = new WatchedMemoryDriver();
    const thread = await storeOver(inner).create({ id: "t", owner: "ana", context: { memory: { n: 1 } } });
    await thread.append({ id: "a", role: "user", text: "one" });
    await thread.append([
      { id: "b", role: "user", text: "two" },
      { id: "c", role: "assistant", text: "three" },
    ]);
    const appends = inner.changes.filter((change) => change.append?.length);
    expect(appends).toHaveLength(2);
    for (const change of appends) {
      expect(change.context).toBeUndefined();
      expect(typeof change.end).toBe("string");
    }
    const stored = (await inner.read("t")) as LogRecord;
    expect(stored.context[END_FIELD]).toBeUndefined();
    expect(JSON.parse(stored.end as string)).toMatchObject({ key: "2026-12" });
    const again = await storeOver(inner).get("t");
    expect((await again.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    expect(again.toJSON()).toMatchObject({ context: { memory: { n: 1 } } });
  });

  it("still fails a cut of the last messages with the length lowered to match", async () => {
    const inner = new WatchedMemoryDriver();
    const thread = await storeOver(inner).create({ id: "t" });
    await thread.append({ id: "a", role: "user", text: "one" });
    await thread.append({ id: "b", role: "user", text: "two" });
    inner.cut = 1;
    const error = await caught(storeOver(inner).get("t"));
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
    expect(String(error)).toContain("end of thread");
  });

  it("fails a record whose end was removed", async () => {
    const inner = new WatchedMemoryDriver();
    await (await storeOver(inner).create({ id: "t" })).append({ id: "a", role: "user", text: "one" });
    inner.withoutEnd = true;
    const error = await caught(storeOver(inner).get("t"));
    expect(IntegrityError.isInstance(error), String(error)).toBe(true);
  });
});

describe("a thread an older version wrote, its end in the record's context", () => {
  /** Writes a thread the way stores did before ends moved out of the context. */
  async function olderThread(inner: MemoryLogDriver) {
    const older = inner as { storesEnd: boolean };
    older.storesEnd = false;
    const thread = await storeOver(inner).create({ id: "old", owner: "ana", context: { memory: { n: 1 } } });
    await thread.append([
      { id: "a", role: "user", text: "one" },
      { id: "b", role: "user", text: "two" },
    ]);
    older.storesEnd = true;
    const stored = (await inner.read("old")) as LogRecord;
    expect(stored.end).toBeUndefined();
    expect(stored.context[END_FIELD]).toBeDefined();
  }

  it("reads, and its next append moves the end out of the context in the same commit", async () => {
    const inner = new WatchedMemoryDriver();
    await olderThread(inner);
    const thread = await storeOver(inner).get("old");
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b"]);
    await thread.append({ id: "c", role: "user", text: "three" });
    const moved = (await inner.read("old")) as LogRecord;
    expect(moved.context[END_FIELD]).toBeUndefined();
    expect(typeof moved.end).toBe("string");
    const again = await storeOver(inner).get("old");
    expect((await again.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    expect(again.toJSON()).toMatchObject({ context: { memory: { n: 1 } } });
    inner.cut = 1;
    expect(IntegrityError.isInstance(await caught(storeOver(inner).get("old")))).toBe(true);
  });

  it("fails a cut of its last messages before it moved", async () => {
    const inner = new WatchedMemoryDriver();
    await olderThread(inner);
    inner.cut = 1;
    expect(IntegrityError.isInstance(await caught(storeOver(inner).get("old")))).toBe(true);
  });
});

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import type { LogChange } from "@skein/thread-core/driver";
import { IntegrityError, normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { CorruptStoreError, FsLogDriver, fsStore, LockLostError } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { decodeHeadEnd, encodeHeadEnd, HEAD_END_FILE, HEAD_END_SLOT } from "../src/segments/head-end.js";
import { SegmentLog } from "../src/segments/segment-log.js";
import { claimSeal, sealState } from "../src/takeover/head-seal.js";

const ENTRY_SIZE = 40;

/** A new encrypted store with a thread "t" holding `count` appended messages, closed. */
async function seeded(count: number) {
  const directory = await temporaryDirectory();
  const encryption = { keys: { k: randomBytes(32) }, current: "k" };
  const store = fsStore({ directory, encryption });
  const thread = await store.create({ id: "t" });
  for (let index = 0; index < count; index++)
    await thread.append({ id: `m${index}`, role: "user", text: `message ${index}` });
  await store.close();
  const head = await storedHead(directory);
  const segment = new StoreLayout(directory).segmentDirectory(head);
  return {
    directory,
    encryption,
    record: new StoreLayout(directory).recordPath("t"),
    files: {
      log: join(segment, "messages.jsonl"),
      index: join(segment, "index.bin"),
      end: join(segment, HEAD_END_FILE),
    },
  };
}

async function storedHead(directory: string): Promise<string> {
  const driver = new FsLogDriver({ directory });
  try {
    const record = await driver.read("t");
    if (record?.kind !== "log") throw new Error("no log record t");
    return record.head;
  } finally {
    await driver.close();
  }
}

async function readIds(directory: string, encryption: Parameters<typeof fsStore>[0]["encryption"]) {
  const store = fsStore({ directory, encryption });
  try {
    return (await (await store.get("t")).messages()).map((message: Message) => message.id);
  } finally {
    await store.close();
  }
}

describe("an encrypted append on a file store keeps the thread's end in its head's end file", () => {
  it("leaves the record file alone: the same file, unchanged, however many appends land", async () => {
    const { directory, encryption, record, files } = await seeded(1);
    const before = statSync(record);
    const text = readFileSync(record, "utf8");
    const store = fsStore({ directory, encryption });
    const thread = await store.get("t");
    for (let index = 1; index < 6; index++)
      await thread.append({ id: `m${index}`, role: "user", text: `message ${index}` });
    await store.close();
    const after = statSync(record);
    // A rewrite renames a new file into place: another inode.
    expect(after.ino).toBe(before.ino);
    expect(readFileSync(record, "utf8")).toBe(text);
    expect(statSync(files.end).size).toBeGreaterThan(0);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5"]);
  });

  it("reads the previous commit when a crash left an append's entries without its end file, and appends on", async () => {
    const { directory, encryption, files } = await seeded(2);
    const endBefore = readFileSync(files.end);
    const store = fsStore({ directory, encryption });
    await (await store.get("t")).append({ id: "m2", role: "user", text: "message 2" });
    await store.close();
    // The crash point: lines and entries of m2 on disk, the end file as it was before its write.
    writeFileSync(files.end, endBefore);
    expect(statSync(files.index).size).toBe(3 * ENTRY_SIZE);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1"]);
    const next = fsStore({ directory, encryption });
    await (await next.get("t")).append({ id: "m3", role: "user", text: "message 3" });
    await next.close();
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m3"]);
  });

  it("reads the new message once the end file was written (a crash after the commit point)", async () => {
    const { directory, encryption } = await seeded(2);
    const store = fsStore({ directory, encryption });
    await (await store.get("t")).append({ id: "m2", role: "user", text: "message 2" });
    // Not closed: nothing flushed or written after the append answered.
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2"]);
    await store.close();
  });

  it("fails with IntegrityError when the last commit's lines and entries are cut, the end file left as is", async () => {
    const { directory, encryption, files } = await seeded(3);
    const secondEnds = statSync(files.index).size - ENTRY_SIZE;
    const logEnd = readFileSync(files.index).readUIntLE(secondEnds - ENTRY_SIZE, 6);
    truncateSync(files.index, secondEnds);
    truncateSync(files.log, logEnd);
    await expect(readIds(directory, encryption)).rejects.toSatisfy((error) =>
      IntegrityError.isInstance(error),
    );
  });

  it("fails with CorruptStoreError when the end file's slot does not match its checksum", async () => {
    const { directory, encryption, files } = await seeded(2);
    const bytes = readFileSync(files.end);
    bytes[bytes.length - 6] = (bytes[bytes.length - 6] as number) ^ 0xff;
    writeFileSync(files.end, bytes);
    await expect(readIds(directory, encryption)).rejects.toSatisfy((error) =>
      CorruptStoreError.isInstance(error),
    );
  });

  it("a takeover's seal records the end there: the appender taken over writing its end file past the seal changes nothing read", async () => {
    const { directory, encryption } = await seeded(2);
    const head = await storedHead(directory);
    const driver = new FsLogDriver({ directory });
    const segment = driver.layout.segmentDirectory(head);
    // A writer took the lock over and claimed the head's seal; a reader finds the claim and publishes it.
    claimSeal(segment);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1"]);
    expect(sealState(segment)).toMatchObject({ state: "sealed", count: 2, end: expect.any(String) });
    // The appender taken over resumes: its commit's entries land past the seal, then its end file.
    const log = driver.log(head);
    await log.withFiles(async (files) => {
      const tail = await files.tail();
      const revision = (tail.last?.revision ?? 0) + 1;
      const [stored] = await files.messages(1, 2);
      await log.append(
        [{ ...(stored as Message), id: "late" }],
        { revision, committedAt: Date.now(), guarded: true },
        tail,
        files,
      );
      const end = JSON.stringify({ key: "k", check: "late", mac: "late" });
      await log.writeEnd({ revision, recordRevision: revision, recordRekeyed: 0, end }, files);
    });
    await driver.close();
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1"]);
    // The next writer moves the thread off the sealed head, with the end the seal recorded.
    const store = fsStore({ directory, encryption });
    await (await store.get("t")).append({ id: "m2", role: "user", text: "message 2" });
    await store.close();
    expect(await storedHead(directory)).not.toBe(head);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2"]);
    // The record moved off the sealed head says the new head has an end file once the append made it.
    const moved = await storedHead(directory);
    expect(JSON.parse(readFileSync(driver.layout.recordPath("t"), "utf8")).endFile).toBe(true);
    expect(existsSync(join(driver.layout.segmentDirectory(moved), HEAD_END_FILE))).toBe(true);
  });
});

/** The stored record of thread "t", as JSON. */
function storedRecord(recordPath: string): Record<string, unknown> {
  return JSON.parse(readFileSync(recordPath, "utf8"));
}

async function appendTo(
  directory: string,
  encryption: Parameters<typeof fsStore>[0]["encryption"],
  id: string,
) {
  const store = fsStore({ directory, encryption });
  try {
    await (await store.get("t")).append({ id, role: "user", text: id });
  } finally {
    await store.close();
  }
}

const isMissingEnd = (path: string) => (error: unknown) =>
  CorruptStoreError.isInstance(error) && error.path === path && /end is missing/.test(error.message);

/** A clear-made thread "t" driven through `FsLogDriver` with opaque ends (the driver stores what it is given). */
async function driverThread() {
  const directory = await temporaryDirectory();
  const clear = fsStore({ directory });
  await clear.create({ id: "t" });
  await clear.close();
  const head = await storedHead(directory);
  const driver = new FsLogDriver({ directory });
  const endPath = join(driver.layout.segmentDirectory(head), HEAD_END_FILE);
  const commit = (id: string, end: string, more: Partial<LogChange> = {}, by = driver) =>
    by.commit("t", {
      expectHead: head,
      append: [normalizeMessage({ id, role: "user", text: id })],
      end,
      ...more,
    });
  const read = async () => {
    const reader = new FsLogDriver({ directory });
    try {
      return await reader.read("t");
    } finally {
      await reader.close();
    }
  };
  return { directory, driver, head, endPath, commit, read, recordPath: driver.layout.recordPath("t") };
}

describe("the thread's end is kept in one place: the record, or its head's end file", () => {
  it("moves the end into the end file with the thread's first end, and leaves the record without one", async () => {
    const { driver, endPath, commit, read, recordPath } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2");
    expect(await read()).toMatchObject({ kind: "log", length: 2, end: "end-2" });
    const stored = storedRecord(recordPath);
    expect(stored.endFile).toBe(true);
    expect(stored).not.toHaveProperty("end");
    expect(decodeHeadEnd(readFileSync(endPath))).toMatchObject({ end: "end-2" });
    await driver.close();
  });

  it("takes the end back into the record on a change that rewrites it, and makes the end file void", async () => {
    const { driver, endPath, commit, read, recordPath } = await driverThread();
    await commit("a", "end-1");
    const marked = readFileSync(recordPath, "utf8");
    await commit("b", "end-2", { metadata: { title: "b" } });
    expect(await read()).toMatchObject({ kind: "log", length: 2, end: "end-2" });
    expect(storedRecord(recordPath)).toMatchObject({ end: "end-2" });
    expect(storedRecord(recordPath)).not.toHaveProperty("endFile");
    expect(decodeHeadEnd(readFileSync(endPath))).toMatchObject({ end: "" });
    // No older end is left beside the record's: the first commit's record, put back, finds none.
    writeFileSync(recordPath, marked);
    await expect(read()).rejects.toSatisfy((error) => CorruptStoreError.isInstance(error));
    await driver.close();
  });

  it("moves the end back into the end file with the next append; a crash between the end file and the record reads the record's commit", async () => {
    const { directory, driver, endPath, commit, read, recordPath } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2", { metadata: { title: "b" } });
    const unmarked = readFileSync(recordPath, "utf8");
    await commit("c", "end-3");
    expect(storedRecord(recordPath).endFile).toBe(true);
    expect(await read()).toMatchObject({ length: 3, end: "end-3" });
    await driver.close();
    // The crash point: c's entries and the end file naming it on disk, the record not renamed: the record,
    // which holds its end, reads no end file, and c's entries are not confirmed.
    writeFileSync(recordPath, unmarked);
    expect(await read()).toMatchObject({ length: 2, end: "end-2" });
    const next = new FsLogDriver({ directory });
    await commit("d", "end-4", {}, next);
    await next.close();
    expect(await read()).toMatchObject({ length: 3, end: "end-4" });
    expect(decodeHeadEnd(readFileSync(endPath))).toMatchObject({ end: "end-4" });
  });

  it("ignores the end file of a record that holds its end, even a damaged one", async () => {
    const { driver, endPath, commit, read } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2", { metadata: { title: "b" } });
    writeFileSync(endPath, randomBytes(64));
    expect(await read()).toMatchObject({ length: 2, end: "end-2" });
    await driver.close();
  });

  it("rekey moves an end too long for the end file's slot into the record, and makes the end file void", async () => {
    const { driver, endPath, commit, read, recordPath } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2");
    const long = `end-${"x".repeat(HEAD_END_SLOT)}`;
    const rewrite = { events: [], end: { expected: "end-2", replacement: long } };
    expect(await driver.rewriteRecord("t", rewrite)).toBe(true);
    expect(await read()).toMatchObject({ length: 2, end: long });
    expect(storedRecord(recordPath)).toMatchObject({ end: long });
    expect(storedRecord(recordPath)).not.toHaveProperty("endFile");
    expect(decodeHeadEnd(readFileSync(endPath))).toMatchObject({ end: "" });
    await commit("c", "end-3");
    expect(await read()).toMatchObject({ length: 3, end: "end-3" });
    await driver.close();
  });

  it("rekey replaces an end kept in the end file in place, fenced by the current one, and the record keeps none", async () => {
    const { driver, endPath, commit, read, recordPath } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2");
    const before = decodeHeadEnd(readFileSync(endPath));
    const stale = { events: [], end: { expected: "end-1", replacement: "x" } };
    expect(await driver.rewriteRecord("t", stale)).toBe(false);
    const current = { events: [], end: { expected: "end-2", replacement: "end-2b" } };
    expect(await driver.rewriteRecord("t", current)).toBe(true);
    expect(decodeHeadEnd(readFileSync(endPath))).toEqual({ ...before, recordRekeyed: 1, end: "end-2b" });
    expect(storedRecord(recordPath)).not.toHaveProperty("end");
    expect(await read()).toMatchObject({ length: 2, end: "end-2b" });
    await driver.close();
  });
});

describe("the end file's slot goes with the tail it ends", () => {
  it("fails with IntegrityError, never reads a shorter thread, when the slot's revision is lowered", async () => {
    const { directory, encryption, files } = await seeded(3);
    const slot = decodeHeadEnd(readFileSync(files.end));
    if (!slot) throw new Error("no end slot");
    for (const lowered of [slot.revision - 1, slot.revision - 2, 0]) {
      writeFileSync(files.end, encodeHeadEnd({ ...slot, revision: lowered }) as Buffer);
      await expect(readIds(directory, encryption)).rejects.toSatisfy((error) =>
        IntegrityError.isInstance(error),
      );
    }
  });

  it("reads a slot whole while another process overwrites it in place (a torn read is read again)", async () => {
    const { driver, head, endPath, commit } = await driverThread();
    await commit("a", "end-1");
    const written = [`short-${"a".repeat(10)}`, `long-${"b".repeat(300)}`];
    const slots = written.map((end, revision) =>
      (encodeHeadEnd({ revision, recordRevision: revision, recordRekeyed: 0, end }) as Buffer).toString(
        "base64",
      ),
    );
    // An appender's overwrites, as fast as they come: the same bytes `writeEnd` writes, in place at offset 0.
    const writer = spawn(process.execPath, [
      "-e",
      `const fs = require("node:fs");
       const slots = ${JSON.stringify(slots)}.map((slot) => Buffer.from(slot, "base64"));
       const fd = fs.openSync(${JSON.stringify(endPath)}, "r+");
       process.stdout.write("ready");
       for (let round = 0; ; round++) fs.writeSync(fd, slots[round % 2], 0, slots[round % 2].length, 0);`,
    ]);
    await new Promise((resolve, reject) => {
      writer.stdout.once("data", resolve);
      writer.once("exit", (code) => reject(new Error(`the writer exited (${code})`)));
    });
    const log = driver.log(head);
    const ends = new Set<string>();
    try {
      await log.withFiles(async (files) => {
        for (let read = 0; read < 50_000; read++) ends.add((await log.readEnd(files)).end);
      });
    } finally {
      writer.kill("SIGKILL");
      await driver.close();
    }
    // Every read a whole slot: the append's end before the writer's first overwrite, then the writer's.
    expect([...ends].filter((end) => !["end-1", ...written].includes(end))).toEqual([]);
    expect(ends.has(written[0] as string) || ends.has(written[1] as string)).toBe(true);
  });
});

describe("a record that says its head has an end file (endFile)", () => {
  it("fails with CorruptStoreError naming end.bin when the end file was removed, reading or appending, never reads a shorter thread", async () => {
    const { directory, encryption, record, files } = await seeded(3);
    rmSync(files.end);
    // Before the marker, this read the thread as its record's last write left it (here: no message at all).
    await expect(readIds(directory, encryption)).rejects.toSatisfy(isMissingEnd(files.end));
    expect(storedRecord(record).endFile).toBe(true);
    await expect(appendTo(directory, encryption, "m3")).rejects.toSatisfy(isMissingEnd(files.end));
    const driver = new FsLogDriver({ directory });
    await expect(driver.read("t")).rejects.toSatisfy(isMissingEnd(files.end));
    await driver.close();
  });

  it("drops the marker when a rollback or a fork moves to a new head, and marks the new head's end file on its next append", async () => {
    const { directory, encryption, record } = await seeded(2);
    const store = fsStore({ directory, encryption });
    const thread = await store.get("t");
    const checkpoint = await thread.checkpoint();
    await thread.append({ id: "m2", role: "user", text: "message 2" });
    await thread.rollback(checkpoint);
    const rolledBack = storedRecord(record);
    expect(rolledBack.endFile).toBeUndefined();
    await thread.append({ id: "m3", role: "user", text: "message 3" });
    const fork = await thread.fork({ id: "f" });
    await fork.append({ id: "f0", role: "user", text: "fork 0" });
    await store.close();
    const layout = new StoreLayout(directory);
    const marked = storedRecord(record);
    expect(marked).toMatchObject({ endFile: true });
    expect(marked.head).toBe(rolledBack.head);
    expect(existsSync(join(layout.segmentDirectory(String(marked.head)), HEAD_END_FILE))).toBe(true);
    const forkRecord = storedRecord(layout.recordPath("f"));
    expect(forkRecord).toMatchObject({ endFile: true });
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m3"]);
    const reader = fsStore({ directory, encryption });
    expect((await (await reader.get("f")).messages()).map((message: Message) => message.id)).toEqual([
      "m0",
      "m1",
      "m3",
      "f0",
    ]);
    await reader.close();
    // The new head's end file counts like the first one's did.
    rmSync(join(layout.segmentDirectory(String(marked.head)), HEAD_END_FILE));
    await expect(readIds(directory, encryption)).rejects.toSatisfy((error) =>
      CorruptStoreError.isInstance(error),
    );
  });
});

describe("a reader of a record whose head keeps the end in the end file", () => {
  it("does not read the record again when the slot was written by an append on the record it read", async () => {
    const { directory, driver, commit } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2");
    await commit("c", "end-3");
    const reader = new FsLogDriver({ directory });
    const readNow = reader.records.readNow.bind(reader.records);
    let again = 0;
    reader.records.readNow = (id) => {
      again++;
      return readNow(id);
    };
    const before = again;
    expect(await reader.read("t")).toMatchObject({ length: 3, end: "end-3" });
    // `read` reads the record once (through `readNow`), and nothing more.
    expect(again - before).toBeLessThanOrEqual(1);
    await Promise.all([reader.close(), driver.close()]);
  });

  it("reads the record again when a key rotation rewrote it at the same revision", async () => {
    const { directory, driver, commit } = await driverThread();
    await commit("a", "end-1", { metadata: { title: "A" } });
    await commit("b", "end-2");
    const outdated = await driver.records.read("t");
    const rotation = {
      events: [],
      metadata: { expected: { title: "A" }, replacement: { title: "B" } },
      end: { expected: "end-2", replacement: "end-2B" },
    };
    expect(await driver.rewriteRecord("t", rotation)).toBe(true);
    await commit("c", "end-3B");
    const reader = new FsLogDriver({ directory });
    const read = reader.records.read.bind(reader.records);
    let calls = 0;
    reader.records.read = (id) => (calls++ === 0 ? Promise.resolve(outdated) : read(id));
    // Never the rotated-away record's metadata with an end written after the rotation.
    expect(await reader.read("t")).toMatchObject({ length: 3, end: "end-3B", metadata: { title: "B" } });
    await Promise.all([reader.close(), driver.close()]);
  });

  it("reads the record again when a record write came between the record it read and the slot", async () => {
    const { directory, driver, head, commit, recordPath } = await driverThread();
    await commit("a", "end-1");
    await commit("b", "end-2");
    const outdated = await driver.records.read("t");
    // A metadata change keeps the end where it is (the marker stays), then an append writes the slot again.
    await driver.commit("t", { expectHead: head, metadata: { title: "renamed" } });
    await commit("c", "end-3");
    expect(storedRecord(recordPath).endFile).toBe(true);
    const reader = new FsLogDriver({ directory });
    const read = reader.records.read.bind(reader.records);
    let calls = 0;
    reader.records.read = (id) => (calls++ === 0 ? Promise.resolve(outdated) : read(id));
    expect(await reader.read("t")).toMatchObject({ length: 3, end: "end-3", metadata: { title: "renamed" } });
    await Promise.all([reader.close(), driver.close()]);
  });
});

describe("no older end of the thread outlives the commits after it", () => {
  it("a lock takeover's move drops the thread's end from the sealed head's end file and seal", async () => {
    const { directory, encryption, files } = await seeded(2);
    const oldHead = await storedHead(directory);
    const layout = new StoreLayout(directory);
    const oldDirectory = layout.segmentDirectory(oldHead);
    // A taker claimed the seal and stopped; a reader publishes it; the next writer moves the thread on.
    claimSeal(oldDirectory);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1"]);
    expect(sealState(oldDirectory)).toMatchObject({ state: "sealed", count: 2, end: expect.any(String) });
    const store = fsStore({ directory, encryption });
    const thread = await store.get("t");
    for (const id of ["m2", "m3"]) await thread.append({ id, role: "user", text: id });
    await store.close();
    const newHead = await storedHead(directory);
    expect(newHead).not.toBe(oldHead);
    expect(sealState(oldDirectory)).toEqual({ state: "sealed", count: 2 });
    expect(decodeHeadEnd(readFileSync(files.end))).toMatchObject({ end: "" });
    const record = storedRecord(layout.recordPath("t"));
    // The record pointed back at the old head (nothing cut) finds no end there.
    writeFileSync(layout.recordPath("t"), JSON.stringify({ ...record, head: oldHead }));
    await expect(readIds(directory, encryption)).rejects.toSatisfy((error) =>
      CorruptStoreError.isInstance(error),
    );
    // The new head cut to nothing, with the old head's end file copied over its own: no end for it either.
    writeFileSync(layout.recordPath("t"), JSON.stringify(record));
    const newDirectory = layout.segmentDirectory(newHead);
    truncateSync(join(newDirectory, "messages.jsonl"), 0);
    truncateSync(join(newDirectory, "index.bin"), 0);
    writeFileSync(join(newDirectory, HEAD_END_FILE), readFileSync(files.end));
    await expect(readIds(directory, encryption)).rejects.toSatisfy((error) =>
      CorruptStoreError.isInstance(error),
    );
  });

  it("a slot a crash left whole beside a record that took the end back reads as written, and the next write makes it void", async () => {
    const { directory, encryption, record, files } = await seeded(2);
    const whole = readFileSync(files.end);
    // A "batch" append takes the end back into the record (its record write), then makes the slot void.
    const batch = () => fsStore({ directory, encryption, durability: "batch" });
    let store = batch();
    await (await store.get("t")).append({ id: "m2", role: "user", text: "m2" });
    await store.close();
    expect(storedRecord(record)).not.toHaveProperty("endFile");
    expect(decodeHeadEnd(readFileSync(files.end))).toMatchObject({ end: "" });
    // The crash point: the record renamed, the slot not made void yet.
    writeFileSync(files.end, whole);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2"]);
    store = batch();
    await (await store.get("t")).append({ id: "m3", role: "user", text: "m3" });
    await store.close();
    expect(decodeHeadEnd(readFileSync(files.end))).toMatchObject({ end: "" });
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2", "m3"]);
  });
});

describe("a key rotation whose thread lock was taken over while it rewrote the end file", () => {
  /** Runs `rewriteRecord` with `meanwhile` done just before its write of the end file's slot. */
  async function rotateWhile(meanwhile: () => void) {
    const thread = await driverThread();
    await thread.commit("a", "end-1");
    await thread.commit("b", "end-2");
    const writeEnd = SegmentLog.prototype.writeEnd;
    SegmentLog.prototype.writeEnd = async function (this: SegmentLog, ...args: Parameters<typeof writeEnd>) {
      meanwhile.call(thread);
      return writeEnd.apply(this, args);
    };
    try {
      const rotation = { events: [], end: { expected: "end-2", replacement: "end-2b" } };
      await expect(thread.driver.rewriteRecord("t", rotation)).rejects.toSatisfy((error) =>
        LockLostError.isInstance(error),
      );
    } finally {
      SegmentLog.prototype.writeEnd = writeEnd;
    }
    return thread;
  }

  it("does not land once a taker claimed the head's seal, and leaves the slot for the taker's move", async () => {
    const thread = await rotateWhile(function (this: { driver: FsLogDriver; head: string }) {
      claimSeal(this.driver.layout.segmentDirectory(this.head));
    });
    await thread.driver.close();
    // Readers publish the claimed seal and read on; the next writer moves the thread and voids the old slot.
    expect(await thread.read()).toMatchObject({ length: 2 });
    const next = new FsLogDriver({ directory: thread.directory });
    await next.commit("t", { expectHead: thread.head, metadata: { title: "moved" } });
    await next.close();
    expect(storedRecord(thread.recordPath).head).not.toBe(thread.head);
    expect(decodeHeadEnd(readFileSync(thread.endPath))).toMatchObject({ end: "" });
    // The late write's end is the same thread's under the rotation's key: the seal a reader published took it.
    expect(await thread.read()).toMatchObject({ length: 2, end: "end-2b", metadata: { title: "moved" } });
  });

  it("makes the slot void again when the taker moved the thread off the head before its late write", async () => {
    const thread = await rotateWhile(function (this: {
      driver: FsLogDriver;
      head: string;
      recordPath: string;
    }) {
      claimSeal(this.driver.layout.segmentDirectory(this.head));
      // The taker's move: the record names a new head (and its cleanup voided this slot).
      writeFileSync(this.recordPath, JSON.stringify({ ...storedRecord(this.recordPath), head: "moved" }));
    });
    expect(decodeHeadEnd(readFileSync(thread.endPath))).toMatchObject({ end: "" });
    await thread.driver.close();
  });
});

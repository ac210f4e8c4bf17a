import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import { IntegrityError, normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { CorruptStoreError, FsLogDriver, fsStore } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { HEAD_END_FILE } from "../src/segments/head-end.js";
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
      await log.writeEnd({ revision, end: JSON.stringify({ key: "k", check: "late", mac: "late" }) }, files);
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

describe("an append that sets an end on a thread whose record holds none (FsLogDriver)", () => {
  it("puts the end into the record, where readers look for it, then into the end file", async () => {
    const directory = await temporaryDirectory();
    // A thread made in clear: its record holds no end.
    const clear = fsStore({ directory });
    await clear.create({ id: "t" });
    await clear.close();
    const head = { id: await storedHead(directory) };
    const driver = new FsLogDriver({ directory });
    const message = (id: string) => normalizeMessage({ id, role: "user", text: id });
    await driver.commit("t", { expectHead: head.id, append: [message("a")], end: "end-1" });
    await driver.commit("t", { expectHead: head.id, append: [message("b")], end: "end-2" });
    const reader = new FsLogDriver({ directory });
    const read = await reader.read("t");
    expect(read).toMatchObject({ kind: "log", length: 2, end: "end-2" });
    expect(JSON.parse(readFileSync(driver.layout.recordPath("t"), "utf8")).end).toBe("end-1");
    await Promise.all([driver.close(), reader.close()]);
  });
});

/** The stored record of thread "t", as JSON. */
function storedRecord(recordPath: string): Record<string, unknown> {
  return JSON.parse(readFileSync(recordPath, "utf8"));
}

/** The record of thread "t" as a record written before the end file marker: the same, without `endFile`. */
function withoutMarker(recordPath: string): string {
  const { endFile: _endFile, ...old } = storedRecord(recordPath);
  return `${JSON.stringify(old)}\n`;
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

  it("reads the append when a crash left its end file written and the record not renamed yet, and marks it on the next append", async () => {
    const { directory, encryption, record, files } = await seeded(2);
    // A record from before the marker: the next append goes through the record, end file first.
    const before = withoutMarker(record);
    writeFileSync(record, before);
    await appendTo(directory, encryption, "m2");
    expect(storedRecord(record).endFile).toBe(true);
    // The crash point: m2's entries and the end file naming it on disk, the record as it was.
    writeFileSync(record, before);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2"]);
    await appendTo(directory, encryption, "m3");
    expect(storedRecord(record).endFile).toBe(true);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2", "m3"]);
    rmSync(files.end);
    await expect(readIds(directory, encryption)).rejects.toSatisfy(isMissingEnd(files.end));
  });

  it("reads a record written before the marker as before, and its next append adds the marker", async () => {
    const { directory, encryption, record, files } = await seeded(2);
    writeFileSync(record, withoutMarker(record));
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1"]);
    await appendTo(directory, encryption, "m2");
    expect(storedRecord(record).endFile).toBe(true);
    expect(await readIds(directory, encryption)).toEqual(["m0", "m1", "m2"]);
    rmSync(files.end);
    await expect(readIds(directory, encryption)).rejects.toSatisfy(isMissingEnd(files.end));
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

import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { type HistoryEvent, type LogThread, ThreadNotFoundError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { CorruptStoreError, type FsLogDriver, fsStore, UnsupportedStoreFormatError } from "../src/index.js";

const say = (id: string) => ({ id, role: "user" as const, text: id });
const recordPath = (directory: string, id: string) => join(directory, "records", `${id}.json`);
const eventsPath = (directory: string, id: string) => join(directory, "records", `${id}.events`);

describe("a thread's history file", () => {
  it("is not read by commits and reads on the current record", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = (await store.create({ id: "t" })) as LogThread;
    await thread.checkpoint("one");
    await writeFile(eventsPath(directory, "t"), "damaged\n");
    // The handle holds the current record: neither an append nor an update needs the history.
    await thread.append(say("a"));
    await thread.update({ metadata: { still: "fine" } });
    expect(thread.record.events).toHaveLength(1);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a"]);
    expect(await thread.view({ maxMessages: 5 })).toHaveLength(1);
    await expect(fsStore({ directory }).get("t")).rejects.toBeInstanceOf(CorruptStoreError);
    await store.close();
  });

  it("ignores event lines a stopped writer left past the record's count, and cuts them off", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    await thread.append(say("a"));
    const kept = await thread.checkpoint("kept");
    // A writer that appended an event line and stopped before replacing the record.
    await appendFile(eventsPath(directory, "t"), `${JSON.stringify({ kind: "checkpoint", torn: true })}\n`);
    const reader = await fsStore({ directory }).get("t");
    expect((await reader.history()).map((event) => event.kind)).toEqual(["checkpoint"]);
    await reader.checkpoint("next");
    const labels = (await thread.history()).map(
      (event) => event.kind === "checkpoint" && event.checkpoint.label,
    );
    expect(labels).toEqual(["kept", "next"]);
    expect((await readFile(eventsPath(directory, "t"), "utf8")).includes("torn")).toBe(false);
    await thread.rollback(kept.id);
    expect((await thread.history()).map((event) => event.kind)).toEqual([
      "checkpoint",
      "checkpoint",
      "rollback",
    ]);
    await store.close();
  });

  it("never pairs a record with a tail written after another writer replaced it", async () => {
    const directory = await temporaryDirectory();
    const writerStore = fsStore({ directory });
    const writer = await writerStore.create({ id: "t" });
    await writer.append(say("a"));
    const readerStore = fsStore({ directory });
    const reader = (await readerStore.get("t")) as LogThread;
    // Another writer commits between the reader's read of the record and its read of the head's tail.
    const segments = (readerStore as unknown as { driver: FsLogDriver }).driver.segments;
    const info = segments.info.bind(segments);
    let interleave = true;
    segments.info = async (id: string) => {
      if (interleave) {
        interleave = false;
        await writer.checkpoint("one"); // replaces the record
        await writer.append(say("b")); // a later revision, in the head's tail only
      }
      return info(id);
    };
    await reader.refresh();
    segments.info = info;
    const labels = (events: HistoryEvent[]) =>
      events.map((event) => (event.kind === "checkpoint" ? event.checkpoint.label : event.kind));
    expect(labels(reader.record.events)).toEqual(["one"]);
    await reader.checkpoint("two");
    const fresh = await fsStore({ directory }).get("t");
    expect(labels(await fresh.history())).toEqual(["one", "two"]);
    expect((await fresh.messages()).map((message) => message.id)).toEqual(["a", "b"]);
    await writerStore.close();
    await readerStore.close();
  });

  it("never takes a head a delete removed mid-read for an empty one", async () => {
    const directory = await temporaryDirectory();
    const writerStore = fsStore({ directory });
    const writer = await writerStore.create({ id: "t" });
    await writer.append([say("a"), say("b"), say("c")]);
    await writer.checkpoint("the record holds the latest revision");
    const readerStore = fsStore({ directory });
    const reader = (await readerStore.get("t")) as LogThread;
    const records = (readerStore as unknown as { driver: FsLogDriver }).driver.records;
    const read = records.read.bind(records);
    let interleave = true;
    records.read = async (id: string) => {
      const record = await read(id);
      if (interleave) {
        interleave = false;
        await writer.delete(); // another process, between the reader's record read and its tail read
      }
      return record;
    };
    await expect(reader.refresh()).rejects.toBeInstanceOf(ThreadNotFoundError);
    expect(reader.record.length).toBe(3);
    await writerStore.close();
    await readerStore.close();
  });

  it("reads records that keep their history inline, as earlier versions wrote them, and moves it out", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    await thread.append(say("a"));
    const checkpoint = await thread.checkpoint("old");
    const history = await thread.history();
    // The record as an earlier version stored it: events inline, no history file.
    const { eventLog: _eventLog, ...record } = JSON.parse(await readFile(recordPath(directory, "t"), "utf8"));
    await writeFile(recordPath(directory, "t"), `${JSON.stringify({ ...record, events: history })}\n`);
    await writeFile(eventsPath(directory, "t"), "left over from nothing\n");
    const marker = join(directory, "skein-fs.json");
    await writeFile(marker, `${JSON.stringify({ format: "skein-fs", version: 1 })}\n`);

    const reopened = await fsStore({ directory }).get("t");
    expect(await reopened.history()).toEqual(history);
    await reopened.append(say("b"));
    await reopened.rollback(checkpoint.id);
    expect((await reopened.messages()).map((message) => message.id)).toEqual(["a"]);
    expect((await reopened.history()).map((event) => event.kind)).toEqual(["checkpoint", "rollback"]);
    const stored = JSON.parse(await readFile(recordPath(directory, "t"), "utf8"));
    expect(stored.events).toBeUndefined();
    expect(stored.eventLog.count).toBe(2);
    // Marked as the current version (histories apart, the catalogue), so earlier versions refuse it; later
    // ones are refused here.
    expect(JSON.parse(await readFile(marker, "utf8"))).toEqual({ format: "skein-fs", version: 3 });
    await writeFile(marker, `${JSON.stringify({ format: "skein-fs", version: 4 })}\n`);
    await expect(fsStore({ directory }).get("t")).rejects.toBeInstanceOf(UnsupportedStoreFormatError);
    expect(await store.delete("t")).toBe(true);
    await store.close();
  });
});

import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { CorruptStoreError, fsStore } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { LINK_LAG } from "../src/segments/id-buckets.js";
import { ENTRY_SIZE } from "../src/segments/index-entry.js";

const say = (id: string) => ({ id, role: "user" as const, text: `text of ${id}` });
const ids = (messages: Array<{ id: string }>) => messages.map((message) => message.id);

async function headSegment(directory: string, threadId: string): Promise<string> {
  const layout = new StoreLayout(directory);
  const record = JSON.parse(await readFile(layout.recordPath(threadId), "utf8")) as { head: string };
  return layout.segmentDirectory(record.head);
}

/** Overwrites the start of a file, as damage would: what is read from there no longer checks out. */
async function garble(path: string, length: number): Promise<void> {
  const handle = await open(path, "r+");
  await handle.write(Buffer.alloc(length, "#"), 0, length, 0);
  await handle.close();
}

describe("an append-only layout", () => {
  it("appends only new bytes and leaves the record file alone", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    await thread.append([say("a"), say("b")]);
    const segment = await headSegment(directory, "t");
    const recordPath = new StoreLayout(directory).recordPath("t");
    const [recordBefore, recordStat, logBefore] = await Promise.all([
      readFile(recordPath),
      stat(recordPath),
      readFile(join(segment, "messages.jsonl")),
    ]);
    const revision = thread.revision as number;
    await thread.append(say("c"));
    const logAfter = await readFile(join(segment, "messages.jsonl"));
    expect(logAfter.subarray(0, logBefore.length).equals(logBefore)).toBe(true);
    expect(logAfter.subarray(logBefore.length).toString()).toBe(
      `${JSON.stringify((await thread.messages())[2])}\n`,
    );
    expect((await stat(join(segment, "index.bin"))).size).toBe(3 * ENTRY_SIZE);
    expect((await readFile(recordPath)).equals(recordBefore)).toBe(true);
    expect((await stat(recordPath)).ino).toBe(recordStat.ino);
    // Length, revision and updatedAt still read right: they come from the head's last commit.
    const again = await fsStore({ directory }).get("t");
    expect(again.revision).toBe(revision + 1);
    expect((await store.list()).items[0]?.updatedAt).toBe(
      (again as unknown as { record: { updatedAt: string } }).record.updatedAt,
    );
    await store.close();
  });

  it("reads the last messages, and finds ids, without reading the rest of the log", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "long" });
    await thread.append({ id: "sys", role: "system", text: "rules" });
    for (let batch = 0; batch < 5; batch++) {
      await thread.append(Array.from({ length: 100 }, (_, index) => say(`m${batch * 100 + index}`)));
    }
    // Damage the first messages' bytes: reads that do not need them cannot notice.
    const segment = await headSegment(directory, "long");
    await garble(join(segment, "messages.jsonl"), 2000);
    expect(ids(await thread.messages({ last: 3 }))).toEqual(["m497", "m498", "m499"]);
    expect(ids(await thread.messages({ after: "m495" }))).toEqual(["m496", "m497", "m498", "m499"]);
    expect(ids(await thread.view({ maxMessages: 3, keepSystem: false }))).toEqual(["m497", "m498", "m499"]);
    await thread.append(say("m499")); // a re-sent message is found by id, and skipped
    expect(ids(await thread.messages({ last: 1 }))).toEqual(["m499"]);
    // Reading the damaged part is an error, never garbage.
    await expect(thread.messages()).rejects.toBeInstanceOf(CorruptStoreError);
    await store.close();
  });

  it("finds ids across index generations, and new ids are never mistaken for old ones", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory, durability: "batch" });
    const thread = await store.create({ id: "big" });
    const total = 7000; // past the first two generations of id buckets (2048, then 4096)
    for (let from = 0; from < total; from += 1000) {
      await thread.append(Array.from({ length: 1000 }, (_, index) => say(`id-${from + index}`)));
    }
    for (const probe of [0, 1, 2047, 2048, 6143, 6144, 6999]) {
      expect(ids(await thread.messages({ after: `id-${probe}`, limit: 1 }))).toEqual(
        probe === total - 1 ? [] : [`id-${probe + 1}`],
      );
    }
    const stored = await thread.append([say("id-5"), say("id-6500"), say("fresh")]);
    expect(ids(stored)).toEqual(["id-5", "id-6500", "fresh"]);
    expect(ids(await thread.messages({ last: 2 }))).toEqual(["id-6999", "fresh"]);
    await expect(thread.append({ id: "id-3000", role: "user", text: "other text" })).rejects.toThrow(
      /other content/,
    );
    // A large batch is checked by one pass over the index instead of a probe per id.
    const repeats = Array.from({ length: 40 }, (_, index) => say(`id-${index * 170}`));
    expect(ids(await thread.append([...repeats, say("fresher"), say("new")]))).toEqual([
      ...repeats.map((value) => value.id),
      "fresher",
      "new",
    ]);
    expect(ids(await thread.messages({ last: 2 }))).toEqual(["fresher", "new"]);
    await expect(
      thread.append([...repeats, { id: "id-6800", role: "user", text: "changed" }]),
    ).rejects.toThrow(/other content/);
    await store.close();
  });

  it("finds ids while the id buckets lag behind the index, and brings them up to date", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "lagging" });
    // More than LINK_LAG messages, so the buckets have been linked once.
    for (let batch = 0; batch < 4; batch++) {
      await thread.append(Array.from({ length: 20 }, (_, index) => say(`m${batch * 20 + index}`)));
    }
    const buckets = join(await headSegment(directory, "lagging"), "buckets.bin");
    for (const watermark of [7, 0, 500]) {
      // As if a writer died between its commit and linking it (7, 0), or the index was cut back (500).
      const handle = await open(buckets, "r+");
      const header = Buffer.alloc(4);
      header.writeUInt32LE(watermark);
      await handle.write(header, 0, 4, 0);
      await handle.close();
      if (watermark <= 80) expect(ids(await thread.messages({ after: "m18", limit: 1 }))).toEqual(["m19"]);
      await thread.append(say(`after-${watermark}`));
      // Linked again, up to at most LINK_LAG committed entries that lookups read directly.
      const linked = (await readFile(buckets)).readUInt32LE(0);
      const length = (await thread.messages()).length;
      expect(linked).toBeLessThanOrEqual(length);
      expect(length - linked).toBeLessThan(LINK_LAG);
      expect(ids(await thread.messages({ after: "m3", limit: 1 }))).toEqual(["m4"]);
      await thread.append(say("m12"));
      expect(ids(await thread.messages({ last: 1 }))).toEqual([`after-${watermark}`]);
    }
    await store.close();
  });

  it("links the id buckets LINK_LAG entries at a time, and finds every id in between", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "linked" });
    const buckets = join(await headSegment(directory, "linked"), "buckets.bin");
    const watermarks = new Set<number>();
    for (let index = 0; index < LINK_LAG * 2 + 3; index++) {
      await thread.append(say(`m${index}`));
      const header = await readFile(buckets);
      // A new segment's buckets file starts empty: a watermark of 0.
      const linked = header.length >= 4 ? header.readUInt32LE(0) : 0;
      watermarks.add(linked);
      expect(index + 1 - linked).toBeLessThan(LINK_LAG);
      // Every id is found, linked or waiting: a re-send is a no-op, the next message follows it.
      for (const probe of [0, Math.floor(index / 2), index]) {
        if (probe < index)
          expect(ids(await thread.messages({ after: `m${probe}`, limit: 1 }))).toEqual([`m${probe + 1}`]);
      }
      await thread.append(say(`m${index}`));
    }
    expect([...watermarks].sort((a, b) => a - b)).toEqual([0, LINK_LAG, LINK_LAG * 2]);
    expect((await thread.messages()).length).toBe(LINK_LAG * 2 + 3);
    await store.close();
  });

  it("reclaims a thread's segments when nothing reaches them any more", async () => {
    const directory = await temporaryDirectory();
    const layout = new StoreLayout(directory);
    const store = fsStore({ directory });
    const parent = await store.create({ id: "parent" });
    await parent.append([say("a"), say("b")]);
    const checkpoint = await parent.checkpoint();
    await parent.append(say("c"));
    await parent.rollback(checkpoint);
    await parent.append(say("d"));
    const fork = await parent.fork({ id: "fork", at: "a" });
    await fork.append(say("f"));
    expect(await readdir(layout.segments)).toHaveLength(3); // the first head, the rollback's, the fork's

    await parent.delete();
    // The fork still reaches the parent's first segment; the rest is gone.
    expect(await readdir(layout.segments)).toHaveLength(2);
    expect(ids(await fork.messages())).toEqual(["a", "f"]);
    await fork.delete();
    expect(await readdir(layout.segments)).toEqual([]);
    expect(await readdir(layout.records)).toEqual([]);
    expect(await readdir(layout.trash)).toEqual([]);
    expect(await readdir(layout.locks)).toEqual([]);
    await store.close();
  });

  it("keeps other thread types as atomically replaced state files", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory, durability: "batch" });
    const workflow = await store.create("workflow", { id: "flow" });
    await store.save(workflow);
    const record = JSON.parse(await readFile(new StoreLayout(directory).recordPath("flow"), "utf8"));
    expect(record).toMatchObject({ kind: "state", id: "flow", state: { $type: "workflow" } });
    expect((await store.get("flow")).type).toBe("workflow");
    await expect(store.create({ id: "flow" })).rejects.toThrow(/already exists/);
    expect(await readdir(new StoreLayout(directory).temporary)).toEqual([]);
    await store.close();
  });
});

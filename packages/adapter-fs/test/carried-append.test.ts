import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import type { LogRecord } from "@skein/thread-core/driver";
import { normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it, vi } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";

const message = (id: string): Message => normalizeMessage({ id, role: "user", text: id });
const ids = (messages: Array<{ id: string }>) => messages.map((each) => each.id);

describe("an append on the lock kept from the thread's last append (CarriedAppend)", () => {
  it("reads the thread's record once for back-to-back appends, and commits each after the one before", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    await store.create({ id: "t" });
    await store.close();
    const driver = new FsLogDriver({ directory });
    let record = (await driver.read("t")) as LogRecord;
    const reads = vi.spyOn(driver.records, "readNow");
    for (const id of ["a", "b", "c"]) {
      record = (await driver.commit("t", { expectHead: record.head, append: [message(id)], known: record }))
        .record;
    }
    expect(reads).toHaveBeenCalledTimes(1);
    expect(record.revision).toBe(3);
    expect(record.length).toBe(3);
    expect(ids(await driver.readSegment(record.head, 0, 3))).toEqual(["a", "b", "c"]);
    await driver.close();
  });

  it("finds the ids of earlier appends whether the id buckets link them yet or not", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    // More than LINK_LAG (64): the buckets link the first ones on the way; the last ones wait.
    for (let index = 0; index < 70; index++) await thread.append(message(`m${index}`));
    // Each batch is one commit when the lookup finds its old id at once (a miss would write it again).
    expect(ids(await thread.append([message("m68"), message("n1")]))).toEqual(["m68", "n1"]);
    expect(ids(await thread.append([message("m3"), message("n2")]))).toEqual(["m3", "n2"]);
    const all = ids(await thread.messages());
    expect(all).toHaveLength(72);
    expect(all.slice(-3)).toEqual(["m69", "n1", "n2"]);
    await store.close();
  });

  it("is not carried past another store's append to the thread in between", async () => {
    const directory = await temporaryDirectory();
    const first = fsStore({ directory });
    const second = fsStore({ directory });
    const thread = await first.create({ id: "t" });
    const other = await second.get("t");
    await thread.append(message("a"));
    // Takes the lock the first store kept (released for it) and appends after "a".
    await other.append(message("b"));
    // A new holding of the lock: what the first append carried is gone, so "c" goes after "b".
    await thread.append(message("c"));
    expect(ids(await thread.messages())).toEqual(["a", "b", "c"]);
    expect(thread.revision).toBe(3);
    await Promise.all([first.close(), second.close()]);
  });

  it("is not carried past a change that rewrites the record in between (a checkpoint)", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    await thread.append(message("a"));
    const checkpoint = await thread.checkpoint("after a");
    await thread.append(message("b"));
    await store.close();
    const again = fsStore({ directory });
    const read = await again.get("t");
    expect(ids(await read.messages())).toEqual(["a", "b"]);
    expect(read.revision).toBe(3);
    const history = await read.history();
    expect(history.map((event) => (event.kind === "checkpoint" ? event.checkpoint.id : event.kind))).toEqual([
      checkpoint.id,
    ]);
    await again.close();
  });
});

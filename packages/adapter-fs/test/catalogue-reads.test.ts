import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { type FsLogDriver, fsStore } from "../src/index.js";

/** Counts the records a store's driver reads from now on (each is one file read). */
function countRecordReads(store: ReturnType<typeof fsStore>): { reads: () => number } {
  const records = (store.driver as FsLogDriver).records;
  const readNow = records.readNow.bind(records);
  let reads = 0;
  records.readNow = (id: string) => {
    reads++;
    return readNow(id);
  };
  return { reads: () => reads };
}

/**
 * A store of `total` threads, `owned` of them owner "u"'s (created in turn with the others), then each of
 * u's first five threads appended to, so last-change order differs from creation order.
 */
async function populate(total: number, owned: number): Promise<string> {
  const directory = join(await temporaryDirectory(), "store");
  const store = fsStore({ directory, durability: "batch" });
  const every = Math.floor(total / owned);
  const mine: string[] = [];
  for (let index = 0; index < total; index++) {
    const id = `t-${String(index).padStart(5, "0")}`;
    const owner = index % every === 0 && mine.length < owned ? "u" : `other-${index % 7}`;
    if (owner === "u") mine.push(id);
    await store.create({ id, owner, title: id });
  }
  for (const id of mine.slice(0, 5)) await (await store.get(id)).append({ role: "user", text: "hi" });
  await store.close();
  return directory;
}

/** The records read by the first page of u's five newest and by the page after it, in a new process's store. */
async function pageReads(directory: string) {
  // A first store builds the catalogue from the records (a store written before it, as these are: their
  // journal lines came first, and the catalogue is built once) and leaves its snapshot.
  const builder = fsStore({ directory });
  await builder.list({ owner: "u", order: "updated", limit: 1 });
  await builder.close();
  const store = fsStore({ directory });
  const counter = countRecordReads(store);
  const first = await store.list({ owner: "u", order: "updated", limit: 5 });
  const firstReads = counter.reads();
  const second = await store.list({ owner: "u", order: "updated", limit: 5, cursor: first.cursor });
  const secondReads = counter.reads() - firstReads;
  const created = await store.list({ owner: "u", order: "created", direction: "asc", limit: 5 });
  const byId = await store.list({ owner: "u", order: "id", limit: 5 });
  const beforeCount = counter.reads();
  const count = await store.count({ owner: "u" });
  const countReads = counter.reads() - beforeCount;
  await store.close();
  return {
    firstReads,
    secondReads,
    countReads,
    count,
    ids: [first, second, created, byId].map((page) => page.items.map((item) => item.id)),
  };
}

describe("the catalogue index", () => {
  it("reads the same few records for a page of one owner's newest at 10 and at 3,000 threads", async () => {
    const small = await pageReads(await populate(10, 10));
    const large = await pageReads(await populate(3_000, 1_000));
    // The five appended to come first (the last appended first), then the newest created.
    expect(small.ids[0]).toEqual(["t-00004", "t-00003", "t-00002", "t-00001", "t-00000"]);
    expect(small.ids[1]).toEqual(["t-00009", "t-00008", "t-00007", "t-00006", "t-00005"]);
    expect(large.ids[0]).toEqual(["t-00012", "t-00009", "t-00006", "t-00003", "t-00000"]);
    expect(large.ids[1]).toEqual(["t-02997", "t-02994", "t-02991", "t-02988", "t-02985"]);
    expect(large.ids[2]).toEqual(["t-00000", "t-00003", "t-00006", "t-00009", "t-00012"]);
    expect(large.ids[3]).toEqual(large.ids[2]);
    expect([small.count, large.count]).toEqual([10, 1_000]);
    // A page of five asks for six (to know whether a next page exists): six records, each read twice (its
    // file, and again to check it against its head's last commit, as every read of a thread does), the
    // same at either size.
    expect([small.firstReads, small.secondReads]).toEqual([12, 10]);
    expect([large.firstReads, large.secondReads]).toEqual([12, 12]);
    // Counting reads no record: every thread's place is settled.
    expect([small.countReads, large.countReads]).toEqual([0, 0]);
  }, 240_000);
});

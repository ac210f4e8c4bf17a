import { open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import type { LogRecord, SegmentInfo } from "@skein/thread-core/driver";
import { normalizeMessage } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { FsLogDriver } from "../src/index.js";
import { LINK_LAG } from "../src/segments/id-buckets.js";
import { hashMessageId } from "../src/segments/index-entry.js";

const message = (id: string, text = id): Message => normalizeMessage({ id, role: "user", text });
/** The id bucket of a message id among the first 2,048 offsets (generation 0: 1,024 buckets). */
const bucketOf = (id: string) => (hashMessageId(id) >>> 0) % 1024;

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

describe("id buckets after a cut", () => {
  it.each([
    ["flushing the slots, before writing the watermark", true],
    ["writing the watermark", false],
  ])(
    "still find every id when a writer died after %s of a commit the record never confirmed",
    async (_, lostWatermark) => {
      const directory = await temporaryDirectory();
      const driver = new FsLogDriver({ directory });
      const record = await newThread(driver, "t");
      const old = Array.from({ length: LINK_LAG }, (_, index) => message(`old-${index}`));
      // Linked into the buckets: the watermark moves to LINK_LAG.
      for (const item of old) await driver.commit("t", { expectHead: record.head, append: [item] });
      const buckets = join(driver.layout.segmentDirectory(record.head), "buckets.bin");
      expect((await readFile(buckets)).readUInt32LE(0)).toBe(LINK_LAG);
      // One id in the same bucket as each old message, so the commit below moves those buckets' slots.
      const sharing = old.map((item) => {
        for (let attempt = 0; ; attempt++) {
          const id = `new-${item.id}-${attempt}`;
          if (bucketOf(id) === bucketOf(item.id)) return message(id);
        }
      });
      const recordPath = driver.layout.recordPath("t");
      const before = await readFile(recordPath);
      // An append and a record change in one commit (guarded): LINK_LAG new entries, so its slots are linked.
      await driver.commit("t", { expectHead: record.head, append: sharing, metadata: { step: 2 } });
      // As if the writer died before renaming the record (and, first case, before writing the watermark
      // after flushing the slots): the commit does not count, and the next writer cuts its entries off.
      if (lostWatermark) {
        const header = Buffer.alloc(4);
        header.writeUInt32LE(LINK_LAG);
        const handle = await open(buckets, "r+");
        await handle.write(header, 0, 4, 0);
        await handle.close();
      }
      await writeFile(recordPath, before);

      const next = new FsLogDriver({ directory });
      expect(await next.read("t")).toMatchObject({ length: LINK_LAG });
      // Each re-send is held, never written twice; a different id goes in.
      for (const item of old) {
        const result = await next.commit("t", { expectHead: record.head, append: [item] });
        expect(result.held?.map((held) => held.id)).toEqual([item.id]);
      }
      for (const item of old) {
        const [found] = await next.log(record.head).locate([item.id], LINK_LAG);
        expect(found?.offset).toBe(old.indexOf(item));
      }
      await next.commit("t", { expectHead: record.head, append: [message("fresh")] });
      expect(await next.read("t")).toMatchObject({ length: LINK_LAG + 1 });
      await Promise.all([driver.close(), next.close()]);
    },
  );
});

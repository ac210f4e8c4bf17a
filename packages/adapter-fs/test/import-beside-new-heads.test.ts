import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { Message } from "@skein/thread-core";
import type { LogRecord, SegmentInfo } from "@skein/thread-core/driver";
import { normalizeMessage } from "@skein/thread-core/driver";
import { expect, it } from "vitest";
import { FsLogDriver } from "../src/index.js";
import { MAX_SEGMENT_LEASES } from "../src/segments/segment-file-cache.js";

const message = (id: string): Message => normalizeMessage({ id, role: "user", text: id });
const info = (id: string): SegmentInfo => ({ id, base: null, start: 0, createdAt: new Date().toISOString() });

async function newThread(driver: FsLogDriver, id: string, headId: string): Promise<LogRecord> {
  const now = new Date().toISOString();
  const record: LogRecord = {
    kind: "log",
    id,
    type: "fs",
    createdAt: now,
    updatedAt: now,
    revision: 0,
    metadata: {},
    context: {},
    head: headId,
    length: 0,
    events: [],
  };
  await driver.createLog(record, info(headId));
  return record;
}

// An import holds the references lock while it reads and extends segments; commits that move to a new head
// hold a turn on their head's files while they wait for that lock. With every turn held by such commits, an
// import that waited for a turn waited forever (in-process lock waits have no timeout).
it("finishes an import beside more commits to new heads than there are turns", async () => {
  const directory = await temporaryDirectory();
  const driver = new FsLogDriver({ directory, lockTimeoutMs: 3000 });
  // More commits than turns, so every turn is held by one waiting for the references lock.
  const writers = MAX_SEGMENT_LEASES + 16;
  const records: LogRecord[] = [];
  for (let index = 0; index < writers; index++)
    records.push(await newThread(driver, `t${index}`, `seg_h${index}`));
  const imported = Array.from({ length: 200 }, (_, index) => ({
    info: info(`seg_i${index}`),
    messages: [message(`m${index}`)],
  }));
  await driver.importSegments(imported);
  // The import again: every segment is known, so each is read (its tail, its messages) under the references lock.
  const results = await Promise.allSettled([
    driver.importSegments(imported),
    ...records.map((record, index) =>
      driver.commit(record.id, {
        expectHead: record.head,
        newHead: info(`seg_n${index}`),
        append: [message(`x${index}`)],
      }),
    ),
  ]);
  const failed = results.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));
  expect(failed.slice(0, 3)).toEqual([]);
  const moved = await driver.readSegment(`seg_n${writers - 1}`, 0, 10);
  expect(moved.map((stored) => stored.id)).toEqual([`x${writers - 1}`]);
  await driver.close();
}, 30_000);

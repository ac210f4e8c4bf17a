import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fsStore } from "../src/index.js";
import { DurableFiles } from "../src/records/durable-files.js";
import { chainExport } from "./chain-export.js";

/** Segments in the imported chain: several batches, and far more segments than batches. */
const LENGTH = 2_000;
/** Segments one barrier covers, as README ("How a change is written") and RELIABILITY.md promise (`IMPORT_BATCH`). */
const BATCH = 256;
/**
 * Barriers a batch may take: its own flush of everything it staged, the reference to the batch's base outside
 * it, and segments/ once its directories are renamed in. A few more belong to the import as a whole (the
 * thread's record). A barrier per segment would be thousands.
 */
const BARRIERS_PER_BATCH = 3;
const BARRIERS_PER_IMPORT = 10;

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Counts the store's waits for the disk: every call of a `DurableFiles` method that flushes before it
 * returns. An append's flush counts only in "fsync" durability; in "batch" it only notes the file for a
 * later barrier (staged segments are written that way).
 */
function countBarriers(): () => number {
  const barriers = [
    vi.spyOn(DurableFiles.prototype, "syncAll"),
    vi.spyOn(DurableFiles.prototype, "syncDirectory"),
    vi.spyOn(DurableFiles.prototype, "syncFiles"),
    vi.spyOn(DurableFiles.prototype, "writeAtomically"),
  ];
  const appends = vi.spyOn(DurableFiles.prototype, "syncAppend");
  return () =>
    barriers.reduce((sum, spy) => sum + spy.mock.calls.length, 0) +
    appends.mock.contexts.filter((files) => (files as DurableFiles).durability === "fsync").length;
}

describe("an fs import of a long chain of segments", () => {
  it(`flushes a ${LENGTH}-segment chain in about one barrier per ${BATCH} segments, not one per segment`, async () => {
    const store = fsStore({ directory: await temporaryDirectory() });
    await store.list({ limit: 1 }); // makes the store's directories before counting
    const barriers = countBarriers();
    const thread = await store.import(chainExport("chain", LENGTH));
    const counted = barriers();
    vi.restoreAllMocks();
    const batches = Math.ceil(LENGTH / BATCH);
    // Every barrier counted is a real one: the import made at least one per batch.
    expect(counted).toBeGreaterThanOrEqual(batches);
    expect(counted).toBeLessThanOrEqual(BARRIERS_PER_BATCH * batches + BARRIERS_PER_IMPORT);
    const messages = await thread.messages();
    expect(messages).toHaveLength(LENGTH);
    expect(messages.at(-1)?.id).toBe(`chain-m${LENGTH - 1}`);
    await store.close();
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { RecordsPut, WRITES_WAIT_MS } from "./records-put.js";

describe("RecordsPut", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("wakes every write waiting for a record when it is put, also after an earlier wait for it timed out", async () => {
    vi.useFakeTimers();
    const records = new RecordsPut();
    let first = false;
    let second = false;
    const firstWait = records.until("k").then(() => {
      first = true;
    });
    await vi.advanceTimersByTimeAsync(WRITES_WAIT_MS / 2);
    const secondWait = records.until("k").then(() => {
      second = true;
    });
    // The first wait ends by its bound; the second still waits for the record.
    await vi.advanceTimersByTimeAsync(WRITES_WAIT_MS / 2);
    await firstWait;
    expect([first, second]).toEqual([true, false]);
    records.put("k");
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toBe(true);
    await secondWait;
  });

  it("wakes every waiter of a record at once when it is put", async () => {
    const records = new RecordsPut();
    const waits = [records.until("k"), records.until("k"), records.until("other")];
    records.put("k");
    await Promise.all(waits.slice(0, 2));
    records.put("other");
    await waits[2];
    expect(records.has("k") && records.has("other")).toBe(true);
  });
});

import { openStore } from "@skein/thread-core";
import { describe, expect, inject, it } from "vitest";
import { benchThroughput } from "../src/throughput-bench.js";

const redis = inject("redis");

describe("benchThroughput", () => {
  it("measures threads × messages on the memory store, with per-thread order verified", async () => {
    const store = await openStore("memory:");
    const row = await benchThroughput({ store, threads: 200, messagesPerThread: 10 });
    expect(row).toMatchObject({ threads: 200, messagesPerThread: 10, messages: 2000, orderVerified: true });
    expect(row.messagesPerSecond).toBeGreaterThan(0);
    expect((await store.list()).items).toEqual([]);
  });

  it("measures the same on a Redis store", async () => {
    if ("unavailable" in redis) throw new Error(redis.unavailable);
    const store = await openStore(redis.url);
    try {
      const row = await benchThroughput({ store, threads: 100, messagesPerThread: 5 });
      expect(row).toMatchObject({ messages: 500, orderVerified: true });
    } finally {
      await store.close();
    }
  });
});

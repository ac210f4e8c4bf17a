import { createRegistry, openStore, StoreUnavailableError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { freePort, startRedisServer } from "../../../scripts/redis-server.mjs";
import { redisAdapter, redisStore } from "../src/index.js";

// Nothing listens on the port, and the command timeout (10 minutes) outlasts the test's own timeout: only an
// answer given as soon as the connection is refused passes, never one that waits for the timeout.
const TIMEOUT_BEYOND_THE_TEST = 600_000;

describe("a Redis server that is down", () => {
  it("answers openStore with connection refused at once, as a StoreUnavailableError", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}?timeout=${TIMEOUT_BEYOND_THE_TEST}`;
    const error = await openStore(url, { registry: createRegistry(), adapters: [redisAdapter()] }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect((error as StoreUnavailableError).retryable).toBe(true);
    expect((error as Error).message).toMatch(
      /^\[adapter-redis\] Redis at redis:\/\/127\.0\.0\.1:\d+.* refused the connection/,
    );
  });

  it("fails a store's first call the same way, and connects on a later call once Redis listens", async () => {
    const port = await freePort();
    const store = redisStore({
      url: `redis://127.0.0.1:${port}`,
      commandTimeoutMs: TIMEOUT_BEYOND_THE_TEST,
      registry: createRegistry(),
    });
    const error = await store.get("any").then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("refused the connection");

    const server = await startRedisServer({ port });
    try {
      const thread = await store.create({ id: "after-the-outage" });
      expect((await store.get(thread.id)).id).toBe("after-the-outage");
    } finally {
      await store.close();
      await server.stop();
    }
  });
});

import { openStore, StoreUnavailableError, type Thread } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RedisServer, startRedisServer } from "../../../scripts/redis-server.mjs";
import { redisAdapter, redisStore } from "../src/index.js";

/**
 * Runs `call`, expecting it to fail with StoreUnavailableError; returns how long that took. Callers assert
 * no upper bound (a loaded machine may be slow): a call that waited for the server instead of failing would
 * still be waiting when the test's timeout ends it, since the server comes back only after these calls.
 */
async function failsUnavailable(call: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect((error as StoreUnavailableError).retryable).toBe(true);
  expect((error as Error).message).toMatch(/^\[adapter-redis\] /);
  return Date.now() - started;
}

async function eventually<T>(call: () => Promise<T>, withinMs = 60_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const say = (id: string) => ({ id, role: "user" as const, text: id });

describe("when Redis goes away", () => {
  // This file's own server, durable so that a restart keeps the data, as a production server would.
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("fails fast while the server is down and works again once it is back, without duplicates", async () => {
    const store = redisStore({ url: server.url, prefix: "outage", commandTimeoutMs: 1000 });
    const thread = await store.create({ id: "survivor" });
    await thread.append(say("before"));
    await server.stop({ keepDirectory: true });
    await failsUnavailable(() => thread.append(say("during")));
    await failsUnavailable(() => store.get("survivor"));
    await failsUnavailable(() => thread.messages());
    await server.restart();
    await eventually(() => thread.append(say("during")));
    // The caller did not know whether the append during the outage landed, so it retries: no duplicate.
    await thread.append([say("during"), say("after")]);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["before", "during", "after"]);
    await store.close();
  }, 120_000);

  it("bounds calls to a server that accepts connections but never answers", async () => {
    const store = redisStore({ url: server.url, prefix: "hang", commandTimeoutMs: 500 });
    const thread: Thread = await store.create();
    await thread.append(say("one"));
    server.process.kill("SIGSTOP");
    try {
      const elapsed = await failsUnavailable(() => thread.append(say("two")));
      expect(elapsed).toBeGreaterThanOrEqual(400);
      // Only the timeout can end a call to a frozen server: without it the call would outlast the test.
    } finally {
      server.process.kill("SIGCONT");
    }
    // The append that timed out may have landed once the server woke; re-sending it is safe either way.
    await eventually(() => thread.append([say("two"), say("three")]));
    expect((await thread.messages()).map((message) => message.id)).toEqual(["one", "two", "three"]);
    await store.close();
  }, 120_000);

  it("bounds many threads' appends to a frozen server with one timer, and fails each of them", async () => {
    const store = redisStore({ url: server.url, prefix: "many", commandTimeoutMs: 500 });
    const threads = await Promise.all(Array.from({ length: 50 }, () => store.create()));
    server.process.kill("SIGSTOP");
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      const appends = threads.map((thread) => thread.append(say("stuck")));
      // A timer per call cost more CPU than the rest of an append's bookkeeping under load.
      expect(timers.mock.calls.length).toBeLessThanOrEqual(1);
      const outcomes = await Promise.allSettled(appends);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe("rejected");
        expect(StoreUnavailableError.isInstance((outcome as PromiseRejectedResult).reason)).toBe(true);
      }
    } finally {
      timers.mockRestore();
      server.process.kill("SIGCONT");
    }
    await eventually(() => threads[0]?.append(say("stuck")) as Promise<unknown>);
    await store.close();
  });

  it("a store opened while Redis is down fails within its timeout, and openStore says so at once", async () => {
    await server.stop({ keepDirectory: true });
    try {
      const store = redisStore({ url: server.url, prefix: "early", commandTimeoutMs: 500 });
      await failsUnavailable(() => store.create());
      await failsUnavailable(() => openStore(`${server.url}?timeout=500`, { adapters: [redisAdapter()] }));
      await server.restart();
      const thread = await eventually(() => store.create({ id: "late" }));
      expect(thread.id).toBe("late");
      await store.close();
    } finally {
      await server.restart();
    }
  }, 120_000);
});

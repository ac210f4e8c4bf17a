import { createRegistry, openStore, StoreUnavailableError, type Thread } from "@skein/thread-core";
import type { LocalStore } from "@skein/thread-core/driver";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../scripts/redis-server.mjs";
import { redisStore } from "../src/index.js";
import type { RedisLogDriver } from "../src/redis-log-driver.js";
import { uniquePrefix } from "./redis-nodes.js";

/**
 * Replies by which a server says "not now" rather than "wrong" (README, "Faults"): the call is a retryable
 * `StoreUnavailableError`, nothing of it lands, and the same call succeeds once the server can take it.
 * Each case brings the state about on a server of this file's own.
 */

const say = (id: string) => ({ id, role: "user" as const, text: id });

async function connect(url: string) {
  const client = createClient({ url });
  client.on("error", () => {}); // a reply or a dropped connection is the test's to see, not an uncaught event
  await client.connect();
  return client;
}

type Client = Awaited<ReturnType<typeof connect>>;

/** Expects `call` to fail as Redis's "not now" reply `reply` must: retryable, typed, saying which reply. */
async function refusedNotNow(call: () => Promise<unknown>, reply: string): Promise<void> {
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(StoreUnavailableError.isInstance(error), `${String(error)} is a StoreUnavailableError`).toBe(true);
  expect((error as StoreUnavailableError).retryable).toBe(true);
  expect((error as Error).message).toMatch(/^\[adapter-redis\] /);
  expect((error as Error).message).toContain(reply);
}

/**
 * Polls `condition` until it holds; fails after 30 s (far beyond what it takes on a loaded machine), saying
 * what it waited for, rather than leaving the test to its own timeout.
 */
async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`gave up after 30 s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every key of `prefix` with its serialized value: equal snapshots mean nothing was written in between. */
async function snapshot(client: Client, prefix: string): Promise<Record<string, string>> {
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) keys.push(...batch);
  const values: Record<string, string> = {};
  for (const key of keys.sort()) values[key] = String(await client.sendCommand(["DUMP", key]));
  return values;
}

/** The thread as a fresh process would see it: its revision and message ids. */
async function seen(url: string, id: string): Promise<{ revision: number | undefined; ids: string[] }> {
  const store = await openStore(url);
  try {
    const thread = await store.get(id);
    return { revision: thread.revision, ids: (await thread.messages()).map((message) => message.id) };
  } finally {
    await store.close();
  }
}

describe("Redis replies that mean 'not now'", () => {
  let server: RedisServer;
  let admin: Client;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = await connect(server.url);
  });
  afterAll(async () => {
    await admin?.close();
    await server?.stop();
  });

  it("OOM (full, noeviction): an append fails retryably and writes nothing; once there is room, its retry lands once", async () => {
    const prefix = uniquePrefix("oom");
    const store = redisStore({ url: server.url, prefix });
    const url = `${server.url}?prefix=${encodeURIComponent(prefix)}`;
    const thread = await store.create({ id: "full" });
    await thread.append(say("before"));
    const before = await snapshot(admin, prefix);
    await admin.configSet({ "maxmemory-policy": "noeviction", maxmemory: "1" });
    try {
      await refusedNotNow(() => thread.append(say("during")), "OOM");
      // A second attempt while still full is refused the same way: the first left nothing half-done behind.
      await refusedNotNow(() => thread.append(say("during")), "OOM");
      expect(await snapshot(admin, prefix)).toEqual(before);
      expect(await seen(url, "full")).toEqual({ revision: 1, ids: ["before"] });
    } finally {
      await admin.configSet("maxmemory", "0");
    }
    await thread.append(say("during"));
    // The caller could not know whether a failed append landed, so it may send it again: still once.
    await thread.append(say("during"));
    expect(await seen(url, "full")).toEqual({ revision: 2, ids: ["before", "during"] });
    await store.close();
  });

  it("BUSY (a script past busy-reply-threshold): an append fails retryably and writes nothing; after SCRIPT KILL its retry lands once", async () => {
    const prefix = uniquePrefix("busy");
    const store = redisStore({ url: server.url, prefix, commandTimeoutMs: 30_000 });
    const url = `${server.url}?prefix=${encodeURIComponent(prefix)}`;
    const thread: Thread = await store.create({ id: "busy" });
    await thread.append(say("before"));
    const before = await snapshot(admin, prefix);
    await admin.configSet("busy-reply-threshold", "50");
    // A read-only script that never ends: the server answers everyone else BUSY until it is killed.
    const looping = await connect(server.url);
    const loop = looping.sendCommand(["EVAL", "while true do end", "0"]).catch((error: unknown) => error);
    try {
      // Once the threshold has passed, the server answers BUSY; wait for that on another connection.
      await eventually(
        async () => (await admin.ping().catch((error: unknown) => String(error))).includes("BUSY"),
        "the server to answer BUSY while the script loops",
      );
      await refusedNotNow(() => thread.append(say("during")), "BUSY");
    } finally {
      await admin.sendCommand(["SCRIPT", "KILL"]);
      expect(String(await loop)).toContain("killed");
      await looping.close();
    }
    expect(await snapshot(admin, prefix)).toEqual(before);
    expect(await seen(url, "busy")).toEqual({ revision: 1, ids: ["before"] });
    await thread.append(say("during"));
    await thread.append(say("during"));
    expect(await seen(url, "busy")).toEqual({ revision: 2, ids: ["before", "during"] });
    await store.close();
  });

  it("READONLY (a replica): an append fails retryably and writes nothing; once the replica is promoted its retry lands once", async () => {
    const prefix = uniquePrefix("readonly");
    // The primary syncs a new replica at once rather than after the default 5 s it waits for more of them.
    await admin.configSet("repl-diskless-sync-delay", "0");
    const replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(server.port)] });
    try {
      const primary = redisStore({ url: server.url, prefix });
      await (await primary.create({ id: "replicated" })).append(say("before"));
      await primary.close();
      const replicaUrl = `${replica.url}?prefix=${encodeURIComponent(prefix)}`;
      const replicaAdmin = await connect(replica.url);
      try {
        // The replica has caught up once the thread reads there as on the primary.
        await eventually(
          async () => (await seen(replicaUrl, "replicated").catch(() => undefined))?.ids.length === 1,
          "the replica to hold the thread written on the primary",
        );
        const store = redisStore({ url: replica.url, prefix });
        const thread = await store.get("replicated");
        const before = await snapshot(replicaAdmin, prefix);
        await refusedNotNow(() => thread.append(say("during")), "READONLY");
        expect(await snapshot(replicaAdmin, prefix)).toEqual(before);
        expect(await seen(replicaUrl, "replicated")).toEqual({ revision: 1, ids: ["before"] });
        // A failover: the replica becomes a primary, and the same store's retry lands there, once.
        await replicaAdmin.sendCommand(["REPLICAOF", "NO", "ONE"]);
        await thread.append(say("during"));
        await thread.append(say("during"));
        expect(await seen(replicaUrl, "replicated")).toEqual({ revision: 2, ids: ["before", "during"] });
        await store.close();
      } finally {
        await replicaAdmin.close();
      }
    } finally {
      await replica.stop();
    }
  });
});

describe("the bound of a call to a server that stops answering (commandTimeoutMs)", () => {
  it("is 5 s by default (README), however the store is opened, and what is given otherwise", async () => {
    const server = await startRedisServer();
    try {
      const url = `${server.url}?prefix=${encodeURIComponent(uniquePrefix("bound"))}`;
      const boundOf = (store: LocalStore) => (store.driver as RedisLogDriver).connection.commandTimeoutMs;
      const stores: LocalStore[] = [
        redisStore({ url }),
        (await openStore(url, { registry: createRegistry() })) as LocalStore,
        redisStore({ url, commandTimeoutMs: 700 }),
        (await openStore(`${url}&timeout=700`, { registry: createRegistry() })) as LocalStore,
      ];
      expect(stores.map(boundOf)).toEqual([5000, 5000, 700, 700]);
      for (const store of stores) await store.close();
    } finally {
      await server.stop();
    }
  });

  it("fails a call when it runs out, saying so, as a retryable StoreUnavailableError", async () => {
    const frozen = await startRedisServer();
    const store = redisStore({ url: frozen.url, prefix: uniquePrefix("timeout"), commandTimeoutMs: 300 });
    try {
      const thread = await store.create({ id: "frozen" });
      frozen.process.kill("SIGSTOP");
      try {
        // Only the timeout can end this call; the message names the bound the store was built with.
        await refusedNotNow(() => thread.append(say("late")), "did not answer within 300 ms");
      } finally {
        frozen.process.kill("SIGCONT");
      }
    } finally {
      await store.close();
      await frozen.stop();
    }
  });
});

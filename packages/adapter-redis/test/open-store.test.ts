import {
  createRegistry,
  InvalidStoreUrlError,
  openStore,
  SkeinError,
  StoreClosedError,
  StoreUnavailableError,
} from "@skein/thread-core";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { startRedisServer } from "../../../scripts/redis-server.mjs";
import { redisAdapter, redisStore } from "../src/index.js";
import type { RedisLogDriver } from "../src/redis-log-driver.js";
import {
  clusterUrl,
  connectSingle,
  deleteKeys,
  keysWithPrefix,
  singleUrl,
  uniquePrefix,
} from "./redis-nodes.js";

describe("openStore with redis URLs", () => {
  it("opens redis://host:port through thread-core, and a thread's JSON opens again", async () => {
    const prefix = uniquePrefix("open");
    const store = await openStore(`${singleUrl()}?prefix=${prefix}`, { registry: createRegistry() });
    expect(store.nativeType).toBe("redis");
    const thread = await store.create({ id: "by-url" });
    await thread.append({ role: "user", text: "hello" });
    const again = await store.open(JSON.parse(JSON.stringify(thread)));
    expect((await again.messages()).map((message) => message.contents[0])).toEqual([
      { type: "text", text: "hello" },
    ]);
    expect(await keysWithPrefix(singleUrl(), prefix)).not.toEqual([]);
    await store.close();
    await deleteKeys(singleUrl(), prefix);
  });

  it("opens Redis Cluster from ?cluster=true, and from extra node= parameters", async () => {
    const prefix = uniquePrefix("open-cluster");
    const [first, second] = [clusterUrl(), clusterUrl().replace(/\?.*$/, "")];
    const port = Number(new URL(first).port);
    for (const url of [`${first}&prefix=${prefix}`, `${second}?node=127.0.0.1:${port}&prefix=${prefix}`]) {
      const store = await openStore(url, { adapters: [redisAdapter()] });
      expect((store as unknown as { driver: RedisLogDriver }).driver.connection.cluster).toBe(true);
      for (const id of ["a", "b", "c", "d"])
        await (await store.create()).append({ id, role: "user", text: id });
      expect((await store.list()).items).toHaveLength(url === `${first}&prefix=${prefix}` ? 4 : 8);
      await store.close();
    }
    await deleteKeys(clusterUrl(), prefix);
  });

  it("never shows a password in store.url or in errors", async () => {
    const store = redisStore({ url: "redis://user:s3cret@127.0.0.1:1/0", commandTimeoutMs: 300 });
    expect(store.url).not.toContain("s3cret");
    expect(store.url).toContain("***");
    const error = await store.create().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(String((error as Error).message)).not.toContain("s3cret");
    await store.close();
  });

  it("says at once that Redis refused the credentials, without the password", async () => {
    const server = await startRedisServer();
    const admin = createClient({ url: server.url });
    try {
      await admin.connect();
      await admin.configSet("requirepass", "right-one");
      const store = redisStore({
        url: `redis://:wrong-one@127.0.0.1:${server.port}`,
        // Beyond the test's own timeout: waiting out the command timeout instead of failing at once fails it.
        commandTimeoutMs: 600_000,
      });
      const error = (await store.create().catch((thrown: unknown) => thrown)) as Error;
      expect(SkeinError.isInstance(error)).toBe(true);
      expect(error.message).toContain("refused the credentials");
      expect(error.message).not.toContain("wrong-one");
      // Later calls fail the same way, at once, until the store is closed.
      expect(((await store.list().catch((thrown: unknown) => thrown)) as Error).message).toContain(
        "credentials",
      );
      await store.close();
    } finally {
      await admin.quit().catch(() => {});
      await server.stop();
    }
  });

  it("rejects URLs and options it cannot honour with a typed error", async () => {
    const bad = [
      "redis://h?clustre=true",
      "redis://h?ttl=soon",
      "redis://h?cluster=maybe",
      "redis://h:7000/3?cluster=true",
    ];
    for (const url of bad) {
      const error = await openStore(url, { adapters: [redisAdapter()] }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(InvalidStoreUrlError);
      expect((error as Error).message).toMatch(/^\[adapter-redis\] /);
    }
    expect(() => redisStore({ url: singleUrl(), prefix: "a{b}" })).toThrow(SkeinError);
    expect(() => redisStore({ url: singleUrl(), ttlSeconds: -1 })).toThrow(/ttlSeconds/);
  });
});

describe("a client passed in", () => {
  it("is used as it is, and close() leaves it open", async () => {
    const prefix = uniquePrefix("client");
    const client = await connectSingle();
    const store = redisStore({ client, prefix });
    await (await store.create()).append({ role: "user", text: "through my client" });
    await store.close();
    expect(client.isOpen).toBe(true);
    expect(await client.ping()).toBe("PONG");
    expect(await store.list().catch((thrown: unknown) => thrown)).toBeInstanceOf(StoreClosedError);
    await client.close();
    await deleteKeys(singleUrl(), prefix);
  });
});

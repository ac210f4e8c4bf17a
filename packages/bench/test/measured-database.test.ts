// The Redis rows measure a database of their own: on a REDIS_URL someone uses, a database holding keys is
// left as it was (the row is skipped), and an empty one is measured and emptied again. The catalogue and
// branching rows' stores live under key prefixes of their own, deleted when the store is disposed.
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer } from "../../../scripts/redis-server.mjs";
import { redisFactory } from "../src/fresh-stores.js";
import { langgraphRows } from "../src/langgraph-scenario.js";
import { storageRows } from "../src/storage-scenario.js";

describe("the bench's Redis rows", () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let client: ReturnType<typeof createClient>;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = createClient({ url: redis.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.quit();
    await redis?.stop();
  });

  const cases = [
    { database: 9, rows: (url: string) => storageRows(url, 5), subject: "skein redis store, MEMORY USAGE" },
    {
      database: 10,
      rows: (url: string) => langgraphRows(url, 3),
      subject: "SkeinCheckpointSaver, redis (MEMORY USAGE)",
    },
  ];

  for (const { database, rows, subject } of cases) {
    it(`never wipe database ${database} when it holds someone's keys`, async () => {
      await client.select(database);
      await client.set("someone:else", "keep me");
      const measured = await rows(redis.url);
      expect(measured.map((row) => row.subject)).not.toContain(subject);
      expect(await client.get("someone:else")).toBe("keep me");
      await client.del("someone:else");
    });

    it(`measure database ${database} when it is empty, and leave it empty`, async () => {
      await client.select(database);
      const measured = await rows(redis.url);
      const row = measured.find((candidate) => candidate.subject === subject);
      expect(row?.bytes).toBeGreaterThan(0);
      expect(await client.dbSize()).toBe(0);
    });
  }

  it("keep the catalogue and branching stores apart, and leave someone's keys alone when disposing them", async () => {
    await client.select(0);
    await client.set("someone:else", "keep me");
    const factory = redisFactory("redis", redis.url, 3);
    const [first, second] = [await factory.fresh(), await factory.fresh()];
    await first.store.create({ owner: "owner-1" });
    expect((await second.store.list()).items).toHaveLength(0);
    await second.dispose();
    expect((await first.store.list()).items).toHaveLength(1);
    await first.dispose();
    expect(await client.keys("*")).toEqual(["someone:else"]);
    await client.del("someone:else");
  });
});

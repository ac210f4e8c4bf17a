import { describe, expect, it } from "vitest";
import { withRedis } from "../src/redis-server.js";
import { redisSweeps } from "../src/retention-redis-rows.js";

describe("the redis retention rows (issue 40)", () => {
  it("count the records a sweep reads: each group's expired ones with the index, every one without", async () => {
    await withRedis(async (url) => {
      expect(url, "a redis-server for the bench's Redis rows").toBeDefined();
      const [indexed, more, scanned] = await redisSweeps(url as string, 1_000, [
        { expired: 10, scan: false },
        { expired: 50, scan: false },
        { expired: 10, scan: true },
      ]);
      expect(indexed).toMatchObject({
        store: "redis",
        threads: 1_000,
        expired: 10,
        deleted: 10,
        recordsRead: 10,
      });
      expect(more).toMatchObject({ store: "redis", expired: 50, deleted: 50, recordsRead: 50 });
      expect(scanned).toMatchObject({
        store: "redis, no expiry index (the fallback)",
        deleted: 10,
        recordsRead: 1_000,
      });
    });
  });
});

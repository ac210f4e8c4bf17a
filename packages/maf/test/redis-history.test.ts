// MAF Python's RedisHistoryProvider keeps a session's messages in a Redis list, `chat_messages:<session id>`,
// one `json.dumps(message.to_dict())` per item. Here the list is a real one on the test redis-server.
import { redisUrl, uniquePrefix } from "@skein/test-support/test-redis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromMafHistory, toMafHistory } from "../src/index.js";
import { fixtureJson, IMPORT_TIME } from "./fixtures.js";

const client = createClient({ url: redisUrl() });
const prefix = uniquePrefix("maf");
beforeAll(async () => {
  await client.connect();
});
afterAll(async () => {
  for (const key of await client.keys(`${prefix}:*`)) await client.del(key);
  await client.quit();
});

describe("a RedisHistoryProvider list on a real Redis", () => {
  it("what MAF pushed reads back from LRANGE, and what skein pushes is what MAF pushed", async () => {
    const record = fixtureJson("python/redis_history.json");
    const items = record["LRANGE 0 -1"] as string[];
    const key = `${prefix}:chat_messages:sess_e_redis`;
    await client.rPush(key, items);
    const state = fromMafHistory(await client.lRange(key, 0, -1), {
      sessionId: "sess_e_redis",
      createdAt: IMPORT_TIME,
    });

    const copy = `${prefix}:chat_messages:copy`;
    await client.rPush(copy, await toMafHistory(state, { format: "redis" }));
    expect(await client.lRange(copy, 0, -1)).toEqual(items);
  });
});

import type { LogThread } from "@skein/thread-core";
import { newSortableId } from "@skein/thread-core/driver";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import type { RedisLogDriver } from "../src/redis-log-driver.js";
import { connectSingle, deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

const prefix = uniquePrefix("memory");
afterAll(() => deleteKeys(singleUrl(), prefix));

/** A chat message of about 230 bytes of JSON, like the bench's. */
function chatMessage(index: number) {
  const text = `Message ${index}: the quick brown fox jumps over the lazy dog while the agent plans its next step. `;
  return {
    id: newSortableId(),
    role: index % 2 ? ("assistant" as const) : ("user" as const),
    text: `${text}${"·".repeat(Math.max(0, 95 - text.length))}`,
  };
}

describe("Redis memory", () => {
  it("holds a thread of 1,000 messages in at most 1.5x their JSON bytes", async () => {
    const store = redisStore({ url: singleUrl(), prefix });
    const thread = (await store.create({ id: "memory" })) as LogThread;
    for (let batch = 0; batch < 10; batch++) {
      await thread.append(Array.from({ length: 100 }, (_, index) => chatMessage(batch * 100 + index)));
    }
    const messages = await thread.messages();
    const rawBytes = messages.reduce((sum, message) => sum + Buffer.byteLength(JSON.stringify(message)), 0);
    const layout = (store.driver as RedisLogDriver).layout;
    const record = layout.record(thread.id);
    const head = layout.segment(thread.record.head);
    const client = await connectSingle();
    let used = 0;
    for (const key of [record.record, record.events, head.info, head.messages, head.ids, head.system]) {
      used += Number((await client.sendCommand(["MEMORY", "USAGE", key, "SAMPLES", "0"])) ?? 0);
    }
    await client.close();
    await store.close();
    const ratio = used / rawBytes;
    console.log(
      `redis memory: ${used} bytes for ${messages.length} messages of ${Math.round(rawBytes / messages.length)} JSON bytes ` +
        `(${Math.round(used / messages.length)} bytes a message, ${ratio.toFixed(2)}x)`,
    );
    expect(rawBytes / messages.length).toBeGreaterThan(200);
    expect(ratio).toBeLessThanOrEqual(1.5);
  });
});

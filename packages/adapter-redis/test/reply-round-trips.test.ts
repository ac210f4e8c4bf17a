import type { LogThread } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { connectSingle, deleteKeys, keysWithPrefix, singleUrl, uniquePrefix } from "./redis-nodes.js";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A store whose client notes each command it sends (a script by its kind), followers' wake-ups left out. */
async function notedStore(prefix: string) {
  const client = await connectSingle();
  const sent: string[] = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((args: string[], ...rest: unknown[]) => {
    const [name] = args;
    if (name !== "PUBLISH") sent.push(String(name));
    return (send as (...all: unknown[]) => Promise<unknown>)(args, ...rest);
  }) as typeof client.sendCommand;
  const store = redisStore({ client, prefix });
  cleanups.push(async () => {
    await store.close();
    await client.close();
    await deleteKeys(singleUrl(), prefix);
  });
  return { store, sent };
}

describe("a streamed reply in a redis store: one script per step", () => {
  it("begins with one script, writes each batch with one, and ends with one that also reclaims the batches", async () => {
    const prefix = uniquePrefix("reply-steps");
    const { store, sent } = await notedStore(prefix);
    const thread = (await store.create({ id: "t" })) as LogThread;
    await thread.append({ role: "user", text: "a question" });
    // A first reply, so that the server knows every script (else the first run of each sends its source).
    const first = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 20 });
    await first.write("a first reply, in a batch of its own");
    await first.write("and a second");
    await first.end();
    sent.length = 0;
    // A delta of 40 characters is 64 bytes of JSON: a batch of its own; the last one waits in the buffer.
    const reply = await thread.beginMessage({ role: "assistant", flushMs: 60_000, maxBatchBytes: 60 });
    expect(sent).toEqual(["EVALSHA"]);
    await reply.write("a first delta of forty characters, a bat");
    await reply.write("and a second delta of forty characters..");
    expect(sent).toEqual(["EVALSHA", "EVALSHA", "EVALSHA"]);
    await reply.write(", and the rest");
    const message = await reply.end();
    expect(sent).toEqual(["EVALSHA", "EVALSHA", "EVALSHA", "EVALSHA"]);
    expect(message.contents).toEqual([
      {
        type: "text",
        text: "a first delta of forty characters, a batand a second delta of forty characters.., and the rest",
      },
    ]);
    // The batches' segment is gone: one segment's keys are left, the head's.
    const keys = await keysWithPrefix(singleUrl(), prefix);
    expect(keys.filter((key) => key.endsWith(":messages"))).toHaveLength(1);
    expect((await thread.messages()).map((each) => each.id)).toHaveLength(3);
  });

  it("an import over messages a segment holds is still compared with them first", async () => {
    const prefix = uniquePrefix("reply-retry");
    const { store } = await notedStore(prefix);
    const driver = (store as unknown as { driver: import("@skein/thread-core/driver").LogDriver }).driver;
    const info = {
      id: driver.newSegmentId?.("t") ?? "segment",
      base: null,
      start: 0,
      createdAt: "2026-12-06T00:00:00.000Z",
    };
    const batch = (id: string, text = id) => ({
      id,
      role: "assistant" as const,
      createdAt: info.createdAt,
      contents: [{ type: "text" as const, text }],
    });
    await driver.importSegment(info, [batch("b0")], 0);
    // The same batch again, and one more: a retry that writes only the new one.
    await driver.importSegment(info, [batch("b0"), batch("b1")], 0);
    expect((await driver.readSegment(info.id, 0, 10)).map((message) => message.id)).toEqual(["b0", "b1"]);
    await expect(driver.importSegment(info, [batch("b1", "another text")], 1)).rejects.toMatchObject({
      name: "ConflictError",
    });
  });
});

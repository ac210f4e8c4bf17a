import { ConflictError, type LogThread } from "@skein/thread-core";
import { afterEach, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { connectSingle, deleteKeys, keysWithPrefix, singleUrl, uniquePrefix } from "./redis-nodes.js";

const say = (id: string, text = id) => ({ id, role: "user" as const, text });

describe("what a commit reads back", () => {
  let prefix = "";
  afterEach(() => deleteKeys(singleUrl(), prefix));

  it("an append or a read on the current record reads no history back, however long it is", async () => {
    prefix = uniquePrefix("known");
    const store = redisStore({ url: singleUrl(), prefix });
    const thread = (await store.create()) as LogThread;
    for (let index = 0; index < 20; index++) await thread.checkpoint(`c${index}`);
    const events = thread.record.events;
    await thread.append(say("a"));
    // The same array: the commit built the record from the one the handle held.
    expect(thread.record.events).toBe(events);
    expect(thread.record.events).toHaveLength(20);
    // Reads refresh the record: one that has not moved is not read again.
    await thread.messages({ last: 5 });
    await thread.view({ maxMessages: 5 });
    expect(thread.record.events).toBe(events);
    await thread.checkpoint("after");
    expect(thread.record.events).toHaveLength(21);
    expect(await thread.history()).toEqual(thread.record.events);
    await store.close();
  });

  it("a handle behind another writer gets that writer's changes from its own commit", async () => {
    prefix = uniquePrefix("stale");
    const store = redisStore({ url: singleUrl(), prefix });
    const first = await store.create({ metadata: { step: 1 } });
    const second = await store.get(first.id);
    await second.update({ metadata: { step: 2 } });
    const checkpoint = await second.checkpoint("theirs");
    await first.append(say("mine"));
    expect(first.metadata).toEqual({ step: 2 });
    expect(first.revision).toBe(3);
    expect((first as LogThread).record.events.map((event) => event.kind)).toEqual(["checkpoint"]);
    await first.rollback(checkpoint.id);
    expect(await first.messages()).toEqual([]);
    await store.close();
  });

  it("a batch that repeats an id leaves no trace of its new messages until they are sent alone", async () => {
    prefix = uniquePrefix("held");
    const store = redisStore({ url: singleUrl(), prefix });
    const thread = await store.create();
    const [a] = await thread.append([say("a"), say("b")]);
    await expect(thread.append([say("c"), say("a", "changed")])).rejects.toBeInstanceOf(ConflictError);
    const client = await connectSingle();
    const keys = await keysWithPrefix(singleUrl(), prefix);
    const ids = keys.find((key) => key.endsWith(":ids")) as string;
    const messages = keys.find((key) => key.endsWith(":messages")) as string;
    expect(await client.hLen(ids)).toBe(2);
    expect(await client.lLen(messages)).toBe(2);
    expect(thread.revision).toBe(1);

    const stored = await thread.append([say("c"), say("a")]);
    expect(stored.map((message) => message.id)).toEqual(["c", "a"]);
    expect(stored[1]).toEqual(a);
    expect(await client.hGetAll(ids)).toEqual({ a: "0", b: "1", c: "2" });
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    await client.quit();
    await store.close();
  });

  it("reads message ids as older versions stored them (offset:fingerprint)", async () => {
    prefix = uniquePrefix("legacy");
    const store = redisStore({ url: singleUrl(), prefix });
    const thread = await store.create();
    const [a] = await thread.append([say("a"), say("b")]);
    const client = await connectSingle();
    const [ids] = (await keysWithPrefix(singleUrl(), prefix)).filter((key) => key.endsWith(":ids"));
    await client.hSet(ids as string, { a: "0:Fh2w4bGfn0zO0mXb3Vd9Sg", b: "1:xJ3eW7uTqQvHqvbD0mK1cw" });
    await client.quit();

    expect(await thread.append(say("a"))).toEqual([a]);
    await expect(thread.append(say("a", "changed"))).rejects.toBeInstanceOf(ConflictError);
    expect((await thread.messages({ after: "a" })).map((message) => message.id)).toEqual(["b"]);
    await thread.rollback("a");
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a"]);
    await store.close();
  });

  it("a plain append is one command, however many threads are appended at once through one store", async () => {
    prefix = uniquePrefix("one-trip");
    const client = await connectSingle();
    const store = redisStore({ client, prefix });
    const threads = await Promise.all(Array.from({ length: 20 }, () => store.create()));
    // A thread's first append reads its head segment's info once; the store keeps it after.
    await Promise.all(threads.map((thread) => thread.append(say("first"))));
    const sent: string[] = [];
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((args: string[], ...rest: unknown[]) => {
      sent.push(String(args[0]));
      return (send as (...all: unknown[]) => Promise<unknown>)(args, ...rest);
    }) as typeof client.sendCommand;
    await Promise.all(
      threads.map(async (thread) => {
        for (let index = 0; index < 5; index++) await thread.append(say(`m${index}`));
      }),
    );
    expect(sent).toEqual(Array.from({ length: 100 }, () => "EVALSHA"));
    for (const thread of threads) expect(thread.revision).toBe(6);
    await store.close();
    await client.quit();
  });
});

import type { ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { connectSingle, deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

const THREADS = 60;
const OWNER = "erased-owner";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/**
 * A store whose client counts round trips: a command sent while none of the client's is waiting for its
 * reply starts one; commands sent while others wait share it (the client pipelines them).
 */
async function countedStore(prefix: string) {
  const client = await connectSingle();
  const counts = { commands: 0, roundTrips: 0 };
  let waiting = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((args: string[], ...rest: unknown[]) => {
    counts.commands++;
    if (waiting === 0) counts.roundTrips++;
    waiting++;
    const reply = (send as (...all: unknown[]) => Promise<unknown>)(args, ...rest);
    return reply.finally(() => {
      waiting--;
    });
  }) as typeof client.sendCommand;
  const store = redisStore({ client, prefix });
  cleanups.push(async () => {
    await store.close();
    await client.close();
    await deleteKeys(singleUrl(), prefix);
  });
  return { store, counts };
}

/** The bench's shape: threads of the owner with two messages and a checkpoint each, one of another owner per ten. */
async function fill(store: ThreadStore): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < THREADS; index++) {
    const thread = await store.create({ id: `t-${index}`, owner: OWNER, title: `thread ${index}` });
    await thread.append([
      { role: "user", text: `question ${index}` },
      { role: "assistant", text: `answer ${index}` },
    ]);
    await thread.checkpoint(`after ${index}`);
    ids.push(thread.id);
    if (index % 10 === 0) await store.create({ id: `other-${index}`, owner: "kept-owner" });
  }
  return ids;
}

describe("store.erase on redis: round trips", () => {
  it("waits on no more round trips per thread than deleting the threads one by one", async () => {
    const erased = await countedStore(uniquePrefix("erase-trips"));
    const deleted = await countedStore(uniquePrefix("delete-trips"));
    await fill(erased.store);
    const ids = await fill(deleted.store);

    // Warmed alike first (the scripts loaded into the server), so neither pays a first load.
    for (const { store } of [erased, deleted]) {
      const warm = await store.create({ id: "warm-up", owner: "warm-up" });
      await warm.append({ role: "user", text: "warm" });
      await store.erase({ owner: "warm-up" });
    }
    erased.counts.commands = erased.counts.roundTrips = 0;
    deleted.counts.commands = deleted.counts.roundTrips = 0;

    const report = await erased.store.erase({ owner: OWNER });
    for (const id of ids) await deleted.store.delete(id);

    expect(report.threads).toBe(THREADS);
    expect(report.messages).toBe(THREADS * 2);
    expect((await erased.store.list()).items.map((item) => item.owner)).toEqual(
      Array.from({ length: THREADS / 10 }, () => "kept-owner"),
    );
    // The erasure reads more than a delete (every record, each thread's segments and messages, to find and
    // measure what it deletes), but those reads share round trips with each other and with the deletes;
    // one by one, each read was a wait of its own, about 2.5 times as many as the deletes'.
    const perThread = (counts: { roundTrips: number }) => counts.roundTrips / THREADS;
    expect(perThread(erased.counts)).toBeLessThanOrEqual(perThread(deleted.counts));
    // Commands: what a delete sends, plus the thread's two segment infos and one read of its messages, plus
    // a share of the listings; each segment's info is read once (the plan's reads serve the measure too).
    expect(erased.counts.commands / THREADS).toBeLessThanOrEqual(deleted.counts.commands / THREADS + 4.5);
  });
});

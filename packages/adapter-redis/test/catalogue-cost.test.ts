import type { ListOptions, ThreadStore } from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import {
  clusterUrl,
  connectCluster,
  connectSingle,
  deleteKeys,
  singleUrl,
  uniquePrefix,
} from "./redis-nodes.js";

/** The store sizes compared: a page must cost the same commands in both. */
const SMALL = 10;
const LARGE = 3_000;
/** Of the large store, this many threads belong to the listed owner (all of them, in the small one). */
const OWNED = 1_000;
const PAGE = 5;

const LISTINGS: ListOptions[] = [
  { order: "updated" },
  { order: "updated", direction: "asc" },
  { order: "created" },
  { order: "created", direction: "asc" },
  { order: "id" },
  { order: "id", direction: "desc" },
];

type Counted = { store: ThreadStore; sent: string[]; close(): Promise<void> };

/** A store whose every command to Redis is recorded by name, through the client's own `sendCommand`. */
async function countedSingle(prefix: string): Promise<Counted> {
  const client = await connectSingle();
  const sent: string[] = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((args: string[], ...rest: unknown[]) => {
    sent.push(String(args[0]));
    return (send as (...all: unknown[]) => Promise<unknown>)(args, ...rest);
  }) as typeof client.sendCommand;
  const store = redisStore({ client, prefix });
  const close = async () => {
    await store.close();
    await client.close();
  };
  return { store, sent, close };
}

async function countedCluster(prefix: string): Promise<Counted> {
  const cluster = await connectCluster();
  const sent: string[] = [];
  const send = cluster.sendCommand.bind(cluster);
  cluster.sendCommand = ((key: unknown, readonly: unknown, args: string[], ...rest: unknown[]) => {
    sent.push(String(args[0]));
    return (send as (...all: unknown[]) => Promise<unknown>)(key, readonly, args, ...rest);
  }) as typeof cluster.sendCommand;
  const store = redisStore({ client: cluster, prefix });
  const close = async () => {
    await store.close();
    await cluster.close();
  };
  return { store, sent, close };
}

/** `total` threads, `owned` of them owner "u-7"'s, each with one message, made 100 at a time. */
async function fill(store: ThreadStore, total: number, owned: number): Promise<void> {
  for (let start = 0; start < total; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, total - start) }, async (_, offset) => {
        const index = start + offset;
        const thread = await store.create({
          id: `t-${String(index).padStart(5, "0")}`,
          ...(index % Math.ceil(total / owned) === 0 ? { owner: "u-7" } : { owner: `other-${index % 50}` }),
        });
        await thread.append({ role: "user", text: `hello ${index}` });
      }),
    );
  }
}

/** The commands each listing and a count send, once the store has listed before (the first list checks the build). */
async function commandsOfPages(counted: Counted): Promise<string[][]> {
  await counted.store.list({ limit: 1 });
  const commands: string[][] = [];
  for (const listing of LISTINGS) {
    counted.sent.length = 0;
    const page = await counted.store.list({ ...listing, owner: "u-7", limit: PAGE });
    expect(page.items).toHaveLength(PAGE);
    expect(page.items.every((item) => item.owner === "u-7")).toBe(true);
    commands.push([...counted.sent]);
  }
  counted.sent.length = 0;
  const count = await counted.store.count({ owner: "u-7" });
  commands.push([...counted.sent, `count=${count}`]);
  return commands;
}

describe.each([
  ["a single server", countedSingle, singleUrl],
  ["Redis Cluster", countedCluster, clusterUrl],
])("a page of one owner's threads on %s", (_name, counted, url) => {
  const prefixes: string[] = [];
  afterAll(() => Promise.all(prefixes.map((prefix) => deleteKeys(url(), prefix))));

  it(`sends the same commands at ${SMALL} and at ${LARGE} threads, in every order and direction`, async () => {
    const results: string[][][] = [];
    for (const [total, owned] of [
      [SMALL, SMALL],
      [LARGE, OWNED],
    ] as const) {
      const prefix = uniquePrefix("catalogue-cost");
      prefixes.push(prefix);
      const store = await counted(prefix);
      await fill(store.store, total, owned);
      results.push(await commandsOfPages(store));
      await store.close();
    }
    const [small, large] = results as [string[][], string[][]];
    // One range read of the index and one read per listed record (the page and one more, to know whether
    // a next page exists): nothing grows with the store or with the owner's threads.
    for (const commands of large.slice(0, LISTINGS.length)) {
      expect(commands).toEqual(["ZRANGE", ...Array.from({ length: PAGE + 1 }, () => "HMGET")]);
    }
    expect(large.slice(0, LISTINGS.length)).toEqual(small.slice(0, LISTINGS.length));
    // A count, and one range read of the expiry members (none expired here) for the threads it leaves out.
    expect(small[LISTINGS.length]).toEqual(["ZLEXCOUNT", "ZRANGE", `count=${SMALL}`]);
    expect(large[LISTINGS.length]).toEqual(["ZLEXCOUNT", "ZRANGE", `count=${OWNED}`]);
  }, 240_000);
});

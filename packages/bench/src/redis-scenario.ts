import { HumanMessage } from "@langchain/core/messages";
import { RedisChatMessageHistory } from "@langchain/redis";
import { openStore } from "@skein/thread-core";
import { createClient } from "redis";
import type { Result } from "./compare.js";
import { type AppendLoadSubject, appendAndLoadResults } from "./in-process.js";
import { ATOMIC_APPEND } from "./redis-atomic-append.js";
import { rawRecord, workloadMessages } from "./workload.js";

/** skein's Redis store beside raw node-redis, LangChain's history, and the read-modify-write array pattern. */
export async function redisResults(url: string, rounds: number, count = 1000): Promise<Result[]> {
  const messages = workloadMessages(count);
  const client = createClient({ url });
  await client.connect();
  let run = 0;
  const key = (name: string) => `bench:${name}:${process.pid}:${run++}`;
  const atomicAppend = await client.scriptLoad(ATOMIC_APPEND);
  const subjects: Array<[string, () => Promise<AppendLoadSubject>]> = [
    [
      "raw node-redis RPUSH / LRANGE",
      async () => {
        const list = key("raw");
        return {
          append: (index) => client.rPush(list, JSON.stringify(rawRecord(messages[index] as never, index))),
          load: async () => (await client.lRange(list, 0, -1)).map((text) => JSON.parse(text)).length,
          close: () => client.del(list),
        };
      },
    ],
    [
      "raw atomic append (Lua: revision + id check, RPUSH)",
      async () => {
        const tag = `{${key("atomic")}}`;
        const keys = [`${tag}:record`, `${tag}:messages`, `${tag}:ids`];
        return {
          append: (index) => {
            const record = rawRecord(messages[index] as never, index);
            return client.evalSha(atomicAppend, { keys, arguments: ["", record.id, JSON.stringify(record)] });
          },
          load: async () =>
            (await client.lRange(keys[1] as string, 0, -1)).map((text) => JSON.parse(text)).length,
          close: () => client.del(keys),
        };
      },
    ],
    [
      "skein redis store",
      async () => {
        const store = await openStore(url);
        const thread = await store.create();
        return {
          append: (index) => thread.append(messages[index] as { role: "user"; text: string }),
          load: async () => (await thread.messages()).length,
          close: async () => {
            await store.delete(thread.id);
            await store.close();
          },
        };
      },
    ],
    [
      "LangChain RedisChatMessageHistory",
      async () => {
        const history = new RedisChatMessageHistory({ sessionId: key("langchain"), config: { url } });
        return {
          append: (index) => history.addMessage(new HumanMessage((messages[index] as { text: string }).text)),
          load: async () => (await history.getMessages()).length,
          close: async () => {
            await history.clear();
            await history.client.quit();
          },
        };
      },
    ],
    [
      "whole array in one key (AI SDK pattern)",
      async () => {
        const name = key("array");
        return {
          append: async (index) => {
            const stored = await client.get(name);
            const array = stored ? (JSON.parse(stored) as unknown[]) : [];
            array.push(rawRecord(messages[index] as never, index));
            await client.set(name, JSON.stringify(array));
          },
          load: async () => (JSON.parse((await client.get(name)) ?? "[]") as unknown[]).length,
          close: () => client.del(name),
        };
      },
    ],
  ];
  try {
    return await appendAndLoadResults("redis", rounds, count, subjects);
  } finally {
    await client.quit();
  }
}

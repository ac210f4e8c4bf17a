// The saver's memory is bounded by count (records one reader keeps, thread handles, remembered checkpoints);
// going past each bound only costs reads again, never a wrong answer.
import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { SkeinCheckpointSaver } from "../src/index.js";

const metadata = (step: number) => ({ source: "loop" as const, step, parents: {} });

function checkpoint(id: string, step: number, messages: string[]): Checkpoint {
  return {
    v: 4,
    id,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, step)).toISOString(),
    channel_values: {
      messages: messages.map((text, index) => new HumanMessage({ content: text, id: `m${index}` })),
    },
    channel_versions: { messages: step + 1 },
    versions_seen: {},
  };
}

describe("bounded caches", () => {
  it("lists a thread of more records than one reader keeps (4096), each once, highest id first", async () => {
    const store = await openStore("memory:");
    const saver = new SkeinCheckpointSaver({ store });
    const count = 4200;
    let config: RunnableConfig = { configurable: { thread_id: "long", checkpoint_ns: "" } };
    for (let step = 0; step < count; step++) {
      const id = String(100000 + step);
      config = await saver.put(
        config,
        { ...checkpoint(id, step, []), channel_values: { step } },
        metadata(step),
        {
          step: step + 1,
        },
      );
    }
    const reader = new SkeinCheckpointSaver({ store });
    const ids: string[] = [];
    for await (const tuple of reader.list({ configurable: { thread_id: "long" } })) {
      ids.push(tuple.checkpoint.id);
      expect(tuple.checkpoint.channel_values.step).toBe(Number(tuple.checkpoint.id) - 100000);
    }
    expect(ids).toEqual(Array.from({ length: count }, (_, index) => String(100000 + count - 1 - index)));
    await store.close();
  });

  it("continues each of more threads than the saver keeps open (256) or remembers (64) from its own parent", async () => {
    const store = await openStore("memory:");
    const saver = new SkeinCheckpointSaver({ store });
    const threads = 300;
    const configs: RunnableConfig[] = [];
    for (let index = 0; index < threads; index++) {
      const base = { configurable: { thread_id: `t${index}`, checkpoint_ns: "" } };
      configs.push(
        await saver.put(base, checkpoint("1", 1, [`t${index} one`]), metadata(1), { messages: 2 }),
      );
    }
    for (let index = 0; index < threads; index++) {
      const next = checkpoint("2", 2, [`t${index} one`, `t${index} two`]);
      const config = await saver.put(configs[index] as RunnableConfig, next, metadata(2), { messages: 3 });
      const read = await saver.getTuple(config);
      const messages = read?.checkpoint.channel_values.messages as HumanMessage[];
      expect(messages.map((message) => message.content)).toEqual([`t${index} one`, `t${index} two`]);
      const thread = await store.get(saver.skeinThreadId(`t${index}`));
      const [, second] = await thread.messages();
      // The second record stores the new message only: it kept the first by its hash.
      expect(JSON.stringify(second?.contents)).not.toContain(`t${index} one`);
    }
    await store.close();
  });
});

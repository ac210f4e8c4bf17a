// What `list` reads. `list({ filter })` is over each checkpoint's own metadata (`source`, `step`, `parents`, what a caller put),
// which differs from one checkpoint of a thread to the next: the store's `where`, which picks whole threads by
// their metadata, cannot answer it. What the saver does instead: it asks the filter of each record's metadata
// before it rebuilds the checkpoint, so a checkpoint left out costs the reading of its metadata only.
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type CheckpointMetadata,
  emptyCheckpoint,
  JsonPlusSerializer,
  uuid6,
} from "@langchain/langgraph-checkpoint";
import { freshStore, SERVERLESS_STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import type { ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkeinCheckpointSaver } from "../src/index.js";

/** LangGraph's serializer, counting the values it reads back. */
class CountingSerializer extends JsonPlusSerializer {
  loads = 0;

  override async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    this.loads++;
    return super.loadsTyped(type, data);
  }
}

const TURNS = 30;

for (const kind of SERVERLESS_STORE_KINDS) {
  describe(`SkeinCheckpointSaver list({ filter }) on ${kind}`, () => {
    let store: TestStore;
    let serde: CountingSerializer;
    let saver: SkeinCheckpointSaver;
    let configs: RunnableConfig[];

    beforeEach(async () => {
      store = await freshStore(kind);
      serde = new CountingSerializer();
      saver = new SkeinCheckpointSaver({ store: store.store, serde });
      // A conversation of one checkpoint per message; one of them, step 17, is an update.
      const messages: BaseMessage[] = [];
      configs = [];
      let config: RunnableConfig = { configurable: { thread_id: "chat", checkpoint_ns: "" } };
      for (let step = 0; step < TURNS; step++) {
        messages.push(step % 2 ? new AIMessage(`answer ${step}`) : new HumanMessage(`question ${step}`));
        const metadata: CheckpointMetadata = { source: step === 17 ? "update" : "loop", step, parents: {} };
        config = await saver.put(
          config,
          {
            v: 4,
            id: uuid6(3),
            ts: new Date().toISOString(),
            channel_values: { messages: [...messages], step },
            channel_versions: { messages: step + 1, step: step + 1 },
            versions_seen: {},
          },
          metadata,
          { messages: step + 1, step: step + 1 },
        );
        configs.push(config);
      }
    });
    afterEach(async () => {
      await store.dispose();
    });

    /** The values the serializer reads back while `run` runs. */
    async function cost(run: () => Promise<unknown>): Promise<{ loads: number }> {
      const loads = serde.loads;
      await run();
      return { loads: serde.loads - loads };
    }

    async function listed(config: RunnableConfig, filter: Record<string, unknown>) {
      const tuples = [];
      for await (const tuple of saver.list(config, { filter })) tuples.push(tuple);
      return tuples;
    }

    it("rebuilds only the checkpoints the filter keeps: the others cost their metadata", async () => {
      const thread = { configurable: { thread_id: "chat" } };
      const one = await cost(() => saver.getTuple(configs[17] as RunnableConfig));
      let found: Awaited<ReturnType<typeof listed>> = [];
      const filtered = await cost(async () => {
        found = await listed(thread, { source: "update" });
      });
      expect(found.map((tuple) => tuple.metadata?.step)).toEqual([17]);
      expect(found[0]?.checkpoint.channel_values.messages).toHaveLength(18);
      // The kept checkpoint costs what reading it alone costs; each of the 29 others, one metadata value.
      expect(filtered.loads).toBe(one.loads + (TURNS - 1));

      // Rebuilding all 30 reads every channel of each (each message of a list once per checkpoint holding it).
      const unfiltered = await cost(() => listed(thread, {}));
      expect(unfiltered.loads).toBeGreaterThan(TURNS * 10);
    });

    it("a filter nothing passes reads each record's metadata and nothing of its channels", async () => {
      const none = await cost(async () => {
        expect(await listed({ configurable: { thread_id: "chat" } }, { source: "fork" })).toEqual([]);
      });
      expect(none.loads).toBe(TURNS);
      // The same for the listing of every thread, and for one checkpoint asked by id that the filter leaves out.
      const global = await cost(async () => expect(await listed({}, { step: 99 })).toEqual([]));
      expect(global.loads).toBe(TURNS);
      const byId = await cost(async () =>
        expect(await listed(configs[3] as RunnableConfig, { step: 4 })).toEqual([]),
      );
      expect(byId.loads).toBe(1);
    });
  });
}

/** The store, counting the threads it opens and the pages it lists. */
function countingCalls(store: ThreadStore, calls: { get: number; list: number }): ThreadStore {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "get" && key !== "list") return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        calls[key]++;
        return value.apply(target, args);
      };
    },
  });
}

for (const kind of SERVERLESS_STORE_KINDS) {
  describe(`SkeinCheckpointSaver list() targets on ${kind}`, () => {
    let store: TestStore;

    beforeEach(async () => {
      store = await freshStore(kind);
      const writer = new SkeinCheckpointSaver({ store: store.store });
      for (const threadId of ["a", "b"]) {
        for (const namespace of ["", "inner"]) {
          const checkpoint = { ...emptyCheckpoint(), id: uuid6(3) };
          const config = { configurable: { thread_id: threadId, checkpoint_ns: namespace } };
          await writer.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
        }
      }
    });
    afterEach(async () => {
      await store.dispose();
    });

    /** A listing by a saver that has opened nothing yet (another process), and what it asked of the store. */
    async function listedBy(config: RunnableConfig) {
      const calls = { get: 0, list: 0 };
      const saver = new SkeinCheckpointSaver({ store: countingCalls(store.store, calls) });
      const found: string[] = [];
      for await (const tuple of saver.list(config)) {
        found.push(`${tuple.config.configurable?.thread_id}/${tuple.config.configurable?.checkpoint_ns}`);
      }
      return { found, calls };
    }

    it("a thread and namespace both given open their one skein thread, without listing the store", async () => {
      expect(await listedBy({ configurable: { thread_id: "a", checkpoint_ns: "inner" } })).toEqual({
        found: ["a/inner"],
        calls: { get: 1, list: 0 },
      });
      expect(await listedBy({ configurable: { thread_id: "c", checkpoint_ns: "" } })).toEqual({
        found: [],
        calls: { get: 1, list: 0 },
      });
    });

    it("a namespace across threads opens only that namespace's skein threads: the list's metadata says whose", async () => {
      const { found, calls } = await listedBy({ configurable: { checkpoint_ns: "inner" } });
      expect(found.sort()).toEqual(["a/inner", "b/inner"]);
      expect(calls).toEqual({ get: 2, list: 1 });
    });
  });
}

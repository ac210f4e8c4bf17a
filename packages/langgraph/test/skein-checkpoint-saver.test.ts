// What the saver promises beyond LangGraph's validation suite, on every store: storage linear in the
// conversation, forks that share a prefix, retries that write nothing, ids that never collide, typed errors.
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type Checkpoint, ERROR, uuid6 } from "@langchain/langgraph-checkpoint";
import { freshStore, STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { SkeinError } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckpointConfigError, CheckpointExistsError, SkeinCheckpointSaver } from "../src/index.js";
import { countingStore, type ReadCounter } from "./counting-store.js";

function checkpointOf(messages: BaseMessage[], step: number): Checkpoint {
  return {
    v: 4,
    id: uuid6(3),
    ts: new Date().toISOString(),
    channel_values: { messages, step },
    channel_versions: { messages: step + 1, step: step + 1 },
    versions_seen: { agent: { messages: step } },
  };
}

const metadata = (step: number) => ({ source: "loop" as const, step, parents: {} });

/** Puts one checkpoint per message, each the child of the one before; returns every config. */
async function converse(
  saver: SkeinCheckpointSaver,
  threadId: string,
  turns: number,
): Promise<RunnableConfig[]> {
  const messages: BaseMessage[] = [];
  const configs: RunnableConfig[] = [];
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  for (let step = 0; step < turns; step++) {
    messages.push(
      step % 2 === 0
        ? new HumanMessage({ content: `question ${step}`, id: `m${step}` })
        : new AIMessage({ content: `answer ${step}`, id: `m${step}` }),
    );
    config = await saver.put(config, checkpointOf([...messages], step), metadata(step), {
      messages: step + 1,
      step: step + 1,
    });
    configs.push(config);
  }
  return configs;
}

/** The size, as JSON, of each checkpoint record in the skein thread, oldest first. */
async function recordSizes(saver: SkeinCheckpointSaver, threadId: string): Promise<number[]> {
  const thread = await saver.store.get(saver.skeinThreadId(threadId));
  const messages = await thread.messages();
  return messages
    .filter((message) => message.id.startsWith("cp."))
    .map((message) => JSON.stringify(message.contents).length);
}

for (const kind of STORE_KINDS) {
  describe(`SkeinCheckpointSaver on ${kind}`, () => {
    let store: TestStore;
    let saver: SkeinCheckpointSaver;

    beforeEach(async () => {
      store = await freshStore(kind);
      saver = new SkeinCheckpointSaver({ store: store.store });
    });
    afterEach(async () => {
      await store.dispose();
    });

    it("stores each message of a growing conversation once: record sizes do not grow with its length", async () => {
      const configs = await converse(saver, "long", 120);
      const sizes = await recordSizes(saver, "long");
      expect(sizes).toHaveLength(120);
      // Step 119 holds one message as step 9 does; storing the whole array would make it ~12 times larger.
      expect(sizes[119]).toBeLessThan((sizes[9] as number) * 1.5);
      const latest = await saver.getTuple({ configurable: { thread_id: "long" } });
      const messages = latest?.checkpoint.channel_values.messages as BaseMessage[];
      expect(messages).toHaveLength(120);
      expect(messages[0]).toBeInstanceOf(HumanMessage);
      expect(messages.map((message) => message.content)).toEqual(
        Array.from({ length: 120 }, (_, step) => (step % 2 === 0 ? `question ${step}` : `answer ${step}`)),
      );
      const middle = await saver.getTuple(configs[49] as RunnableConfig);
      expect(middle?.checkpoint.channel_values.messages).toHaveLength(50);
      expect(middle?.checkpoint.channel_values.step).toBe(49);
    });

    it("a fork from an older checkpoint shares its prefix and leaves the other branch as it was", async () => {
      const configs = await converse(saver, "fork", 6);
      const base = await saver.getTuple(configs[3] as RunnableConfig);
      const kept = (base!.checkpoint.channel_values.messages as BaseMessage[]).slice(0, 3);
      const replaced = [...kept, new AIMessage({ content: "a different answer", id: "m3" })];
      const forked = await saver.put(configs[3] as RunnableConfig, checkpointOf(replaced, 4), metadata(4), {
        messages: 5,
      });
      const fork = await saver.getTuple(forked);
      expect(
        (fork!.checkpoint.channel_values.messages as BaseMessage[]).map((message) => message.content),
      ).toEqual(["question 0", "answer 1", "question 2", "a different answer"]);
      // `step` did not change in the fork: it is referred to, not stored again, and still reads back.
      expect(fork?.checkpoint.channel_values.step).toBe(3);
      expect(fork?.parentConfig?.configurable?.checkpoint_id).toBe(configs[3]?.configurable?.checkpoint_id);
      const other = await saver.getTuple(configs[5] as RunnableConfig);
      expect(other?.checkpoint.channel_values.messages).toHaveLength(6);
      const history = [];
      for await (const tuple of saver.list({ configurable: { thread_id: "fork" } })) history.push(tuple);
      expect(history.map((tuple) => tuple.checkpoint.id)).toEqual(
        [
          ...configs.map((config) => config.configurable?.checkpoint_id),
          forked.configurable?.checkpoint_id,
        ].reverse(),
      );
    });

    it("a saver with nothing cached (another process) reads the parent from the store and still stores only the new message", async () => {
      const configs = await converse(saver, "cold", 30);
      const cold = new SkeinCheckpointSaver({ store: store.store });
      const parent = await cold.getTuple(configs[29] as RunnableConfig);
      const messages = [
        ...(parent!.checkpoint.channel_values.messages as BaseMessage[]),
        new HumanMessage("more"),
      ];
      const third = new SkeinCheckpointSaver({ store: store.store });
      const next = await third.put(configs[29] as RunnableConfig, checkpointOf(messages, 30), metadata(30), {
        messages: 31,
      });
      const sizes = await recordSizes(saver, "cold");
      expect(sizes[30]).toBeLessThan((sizes[9] as number) * 1.5);
      const read = await saver.getTuple(next);
      expect((read!.checkpoint.channel_values.messages as BaseMessage[]).at(-1)?.content).toBe("more");
    });

    it("a thread another saver deleted is started afresh, not continued from what was deleted", async () => {
      const configs = await converse(saver, "gone", 5);
      const latest = await saver.getTuple(configs[4] as RunnableConfig);
      await new SkeinCheckpointSaver({ store: store.store }).deleteThread("gone");
      const messages = [
        ...(latest!.checkpoint.channel_values.messages as BaseMessage[]),
        new HumanMessage("after"),
      ];
      const next = await saver.put(configs[4] as RunnableConfig, checkpointOf(messages, 5), metadata(5), {
        messages: 6,
      });
      const read = await saver.getTuple(next);
      expect(read?.checkpoint.channel_values.messages).toHaveLength(6);
      expect(await recordSizes(saver, "gone")).toHaveLength(1);
    });

    it("latest and list follow checkpoint ids, as LangGraph's savers do, not the order they were put", async () => {
      const config = { configurable: { thread_id: "order", checkpoint_ns: "" } };
      const put = (id: string, step: number) =>
        saver.put(config, { ...checkpointOf([], step), id }, metadata(step), { step: step + 1 });
      await put("b", 2);
      await put("a", 1);
      await put("c", 3);
      await put("ab", 4);
      for (const reader of [saver, new SkeinCheckpointSaver({ store: store.store })]) {
        expect((await reader.getTuple(config))?.checkpoint.id).toBe("c");
        const ids = async (options = {}) => {
          const found: string[] = [];
          for await (const tuple of reader.list(config, options)) found.push(tuple.checkpoint.id);
          return found;
        };
        expect(await ids()).toEqual(["c", "b", "ab", "a"]);
        expect(await ids({ limit: 1 })).toEqual(["c"]);
        expect(await ids({ before: { configurable: { checkpoint_id: "c" } }, limit: 2 })).toEqual([
          "b",
          "ab",
        ]);
      }
    });

    it("a second put of a checkpoint id with other content is refused (typed) and the first stays", async () => {
      const config = { configurable: { thread_id: "again", checkpoint_ns: "" } };
      const checkpoint = checkpointOf([new HumanMessage({ content: "hi", id: "h" })], 0);
      const first = await saver.put(config, checkpoint, metadata(0), { messages: 1, step: 1 });
      const changed = { ...checkpoint, channel_values: { ...checkpoint.channel_values, step: 9 } };
      const error = await saver.put(config, changed, metadata(0), { step: 2 }).catch((caught) => caught);
      expect(CheckpointExistsError.isInstance(error)).toBe(true);
      expect(String(error.message)).toMatch(/^\[langgraph\] .*new checkpoint id/);
      expect((await saver.getTuple(first))?.checkpoint.channel_values.step).toBe(0);
      const thread = await saver.store.get(saver.skeinThreadId("again"));
      expect(await thread.messages()).toHaveLength(1);
    });

    it("a put whose parent no saver remembers reads a bounded number of messages, however long the conversation", async () => {
      const configs = await converse(saver, "cold-long", 300);
      const counter: ReadCounter = { messages: 0 };
      const cold = new SkeinCheckpointSaver({ store: countingStore(store.store, counter) });
      const messages = Array.from({ length: 301 }, (_, step) =>
        step === 300
          ? new HumanMessage({ content: "next", id: "m300" })
          : step % 2 === 0
            ? new HumanMessage({ content: `question ${step}`, id: `m${step}` })
            : new AIMessage({ content: `answer ${step}`, id: `m${step}` }),
      );
      await cold.put(configs[299] as RunnableConfig, checkpointOf(messages, 300), metadata(300), {
        messages: 301,
      });
      // The log's end and the parent's neighbourhood: a fixed number of messages, not the 300 before it.
      expect(counter.messages).toBeLessThan(120);
      const sizes = await recordSizes(saver, "cold-long");
      expect(sizes[300]).toBeLessThan((sizes[9] as number) * 1.5);
      const read = await saver.getTuple({ configurable: { thread_id: "cold-long" } });
      expect(read?.checkpoint.channel_values.messages).toHaveLength(301);
    });

    it("a retried put or putWrites writes nothing new", async () => {
      const config = { configurable: { thread_id: "retry", checkpoint_ns: "" } };
      const checkpoint = checkpointOf([new HumanMessage({ content: "hi", id: "h" })], 0);
      const first = await saver.put(config, checkpoint, metadata(0), { messages: 1, step: 1 });
      const again = await saver.put(config, checkpoint, metadata(0), { messages: 1, step: 1 });
      expect(again).toEqual(first);
      await saver.putWrites(first, [["messages", "x"]], "task-1", "path");
      await saver.putWrites(first, [["messages", "x"]], "task-1", "path");
      const thread = await saver.store.get(saver.skeinThreadId("retry"));
      expect(await thread.messages()).toHaveLength(2);
      expect((await saver.getTuple(first))?.pendingWrites).toEqual([["task-1", "messages", "x"]]);
    });

    it("a checkpoint's writes sent before its put (as LangGraph's loop may) are read with it, whichever lands first", async () => {
      const base = { configurable: { thread_id: "early-writes", checkpoint_ns: "" } };
      const first = await saver.put(base, checkpointOf([], 0), metadata(0), {});
      const checkpoint = checkpointOf([new HumanMessage({ content: "hi", id: "h" })], 1);
      const config = { configurable: { ...base.configurable, checkpoint_id: checkpoint.id } };
      // LangGraph puts a checkpoint only once the put before it settled, but writes its tasks' results at once.
      const writes = saver.putWrites(config, [["messages", "early"]], "task-1", "path");
      const put = saver.put(first, checkpoint, metadata(1), { messages: 2 });
      await Promise.all([writes, put]);
      expect((await saver.getTuple(config))?.pendingWrites).toEqual([["task-1", "messages", "early"]]);
      expect((await saver.getTuple(base))?.pendingWrites).toEqual([["task-1", "messages", "early"]]);
    });

    it("a task's later write at a used index is ignored, a special channel's later write replaces the first", async () => {
      const config = await saver.put(
        { configurable: { thread_id: "writes" } },
        checkpointOf([], 0),
        metadata(0),
        {},
      );
      await saver.putWrites(config, [["a", 1]], "task");
      await saver.putWrites(config, [["a", 2]], "task");
      await saver.putWrites(config, [[ERROR, "first failure"]], "task");
      await saver.putWrites(config, [[ERROR, "second failure"]], "task");
      await saver.putWrites(config, [["b", 3]], "another", "~");
      expect((await saver.getTuple(config))?.pendingWrites).toEqual([
        ["task", ERROR, "second failure"],
        ["task", "a", 1],
        ["another", "b", 3],
      ]);
    });

    it("thread ids and namespaces that share characters never share checkpoints", async () => {
      const pairs: Array<[string, string]> = [
        ["a", ""],
        ["a", "b"],
        ["a/b", ""],
        ["a%2fb", ""],
        ["ab", ""],
        ["a", "b/c"],
        ["a".repeat(300), ""],
        [`${"a".repeat(300)}x`, "n".repeat(300)],
        ["a\u0000", "\n"],
        ["a\ud800", ""],
        ["a\udc00", ""],
        ["../../etc", "__proto__"],
      ];
      for (const [index, [threadId, namespace]] of pairs.entries()) {
        await saver.put(
          { configurable: { thread_id: threadId, checkpoint_ns: namespace } },
          checkpointOf([], index),
          metadata(index),
          {
            step: 1,
          },
        );
      }
      for (const [index, [threadId, namespace]] of pairs.entries()) {
        const tuple = await saver.getTuple({
          configurable: { thread_id: threadId, checkpoint_ns: namespace },
        });
        expect(tuple?.metadata?.step).toBe(index);
      }
      const ofA = [];
      for await (const tuple of saver.list({ configurable: { thread_id: "a" } }))
        ofA.push(tuple.metadata?.step);
      expect(ofA.sort()).toEqual([0, 1, 5]);
      await saver.deleteThread("a");
      expect(await saver.getTuple({ configurable: { thread_id: "a", checkpoint_ns: "b" } })).toBeUndefined();
      for (const [threadId, namespace] of pairs.filter(([threadId]) => threadId !== "a")) {
        expect(
          await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: namespace } }),
        ).toBeDefined();
      }
    });

    it("parallel tasks writing to one checkpoint from two savers at once all land, each once", async () => {
      const config = await saver.put(
        { configurable: { thread_id: "parallel" } },
        checkpointOf([], 0),
        metadata(0),
        {},
      );
      const other = new SkeinCheckpointSaver({ store: store.store });
      await Promise.all(
        Array.from({ length: 20 }, (_, task) =>
          (task % 2 ? other : saver).putWrites(
            config,
            [["results", task]],
            `task-${String(task).padStart(2, "0")}`,
          ),
        ),
      );
      const writes = (await other.getTuple(config))?.pendingWrites ?? [];
      expect(writes.map(([taskId, , value]) => [taskId, value])).toEqual(
        Array.from({ length: 20 }, (_, task) => [`task-${String(task).padStart(2, "0")}`, task]),
      );
    });

    it("says what is missing from a config, with a typed error, and writes nothing", async () => {
      const noThread = saver.put({ configurable: {} }, checkpointOf([], 0), metadata(0), {});
      await expect(noThread).rejects.toSatisfy((error) => CheckpointConfigError.isInstance(error));
      await expect(noThread).rejects.toThrow(/\[langgraph\] The config's configurable\.thread_id is missing/);
      const noCheckpoint = saver.putWrites({ configurable: { thread_id: "t" } }, [["a", 1]], "task");
      await expect(noCheckpoint).rejects.toSatisfy((error) => SkeinError.isInstance(error));
      expect((await saver.store.list({ prefix: saver.prefix })).items).toEqual([]);
    });
  });
}

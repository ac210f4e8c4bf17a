// Bad input at the package's doors: each is a typed error at the call, naming what was expected, and nothing
// is written. A store URL where the constructor wants a store is refused (a constructor cannot await an
// opening); SkeinCheckpointSaver.open(url) is the door that takes a URL and owns the store it opens.
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { openStore, StoreClosedError, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CheckpointerArgumentError,
  fromLangChainMessages,
  MessageMappingError,
  SkeinCheckpointSaver,
  toLangChainMessages,
} from "../src/index.js";

/** Calls what untyped callers (plain JS, a bad cast) call. */
const untyped = <Call>(call: Call) => call as unknown as (...args: unknown[]) => unknown;

/** The error `run` threw or rejected with. */
async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

describe("the saver's constructor", () => {
  let store: ThreadStore;
  beforeEach(async () => {
    store = await openStore("memory:");
  });
  afterEach(() => store.close());
  const construct = (options?: unknown) => () =>
    new (SkeinCheckpointSaver as unknown as new (options?: unknown) => unknown)(options);

  it("refuses a store URL and points at SkeinCheckpointSaver.open, which opens and owns it", async () => {
    const error = await errorOf(construct({ store: "memory:" }));
    expect(CheckpointerArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "options.store" });
    expect((error as Error).message).toContain('SkeinCheckpointSaver.open("memory:")');

    const saver = await SkeinCheckpointSaver.open("memory:");
    await saver.put(
      { configurable: { thread_id: "t" } },
      emptyCheckpoint(),
      { source: "input", step: -1, parents: {} },
      {},
    );
    await saver.close();
    expect(StoreClosedError.isInstance(await errorOf(() => saver.store.get(saver.skeinThreadId("t"))))).toBe(
      true,
    );
  });

  it("refuses no options, no store, a Promise of a store and other values", async () => {
    for (const [options, argument] of [
      [undefined, "its options"],
      [null, "its options"],
      [{}, "options.store"],
      [{ store: openStore("memory:") }, "options.store"],
      [{ store: { get: () => undefined } }, "options.store"],
    ] as const) {
      const error = await errorOf(construct(options));
      expect(CheckpointerArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ call: "new SkeinCheckpointSaver", argument });
    }
    const promised = await errorOf(construct({ store: openStore("memory:") }));
    expect((promised as Error).message).toContain("missing await");
  });

  it("blames the prefix option, not a config, for a prefix that is too long or not a string", async () => {
    for (const prefix of ["x".repeat(65), 5, null]) {
      const error = await errorOf(construct({ store, prefix }));
      expect(CheckpointerArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument: "options.prefix" });
      expect((error as Error).message).not.toContain("configurable");
    }
    expect(new SkeinCheckpointSaver({ store, prefix: "x".repeat(64) }).prefix).toHaveLength(64);
  });

  it("refuses a serde that is not a serializer and an ownsStore that is not a boolean", async () => {
    for (const [options, argument] of [
      [{ store, serde: {} }, "options.serde"],
      [{ store, ownsStore: "yes" }, "options.ownsStore"],
    ] as const) {
      expect(await errorOf(construct(options))).toMatchObject({ argument });
    }
  });
});

describe("the saver's methods", () => {
  let saver: SkeinCheckpointSaver;
  beforeEach(async () => {
    saver = await SkeinCheckpointSaver.open("memory:");
  });
  afterEach(() => saver.close());
  const config = { configurable: { thread_id: "t", checkpoint_ns: "" } };
  const metadata = { source: "input", step: -1, parents: {} } as const;

  it("refuse a missing config, checkpoint or writes, and a missing thread id to delete, writing nothing", async () => {
    await saver.put(config, emptyCheckpoint(), metadata, {});
    const before = await saver.store.get(saver.skeinThreadId("t"));
    const held = (await before.messages()).length;
    for (const [call, argument, run] of [
      ["getTuple", "config", () => untyped(saver.getTuple.bind(saver))(undefined)],
      ["list", "config", () => (untyped(saver.list.bind(saver))(undefined) as AsyncGenerator).next()],
      ["put", "config", () => untyped(saver.put.bind(saver))(undefined, emptyCheckpoint(), metadata, {})],
      ["put", "checkpoint", () => untyped(saver.put.bind(saver))(config, undefined, metadata, {})],
      [
        "put",
        "checkpoint",
        () => untyped(saver.put.bind(saver))(config, { channel_values: {} }, metadata, {}),
      ],
      ["putWrites", "writes", () => untyped(saver.putWrites.bind(saver))(config, undefined, "task")],
      ["putWrites", "writes", () => untyped(saver.putWrites.bind(saver))(config, ["channel", 1], "task")],
      ["deleteThread", "threadId", () => untyped(saver.deleteThread.bind(saver))(undefined)],
    ] as const) {
      const error = await errorOf(run);
      expect(CheckpointerArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ call, argument });
    }
    const after = await saver.store.get(saver.skeinThreadId("t"));
    expect(await after.messages()).toHaveLength(held);
    expect((await saver.store.list({ prefix: saver.prefix })).items).toHaveLength(1);
  });
});

describe("the message mappings", () => {
  it("refuse plain { role, content } objects and a single message, saying what to pass", async () => {
    const plain = await errorOf(() => untyped(fromLangChainMessages)([{ role: "user", content: "hi" }]));
    expect(MessageMappingError.isInstance(plain)).toBe(true);
    expect((plain as Error).message).toContain("coerceMessageLikeToMessage");
    for (const messages of [new HumanMessage("hi"), undefined]) {
      expect(
        MessageMappingError.isInstance(await errorOf(() => untyped(fromLangChainMessages)(messages))),
      ).toBe(true);
    }
  });

  it("refuse no messages, and objects that are not skein messages", async () => {
    for (const messages of [undefined, [null], [{ role: "user", content: "hi" }]]) {
      const error = await errorOf(() => untyped(toLangChainMessages)(messages));
      expect(MessageMappingError.isInstance(error)).toBe(true);
    }
    expect(toLangChainMessages([{ role: "user", text: "hi" }])).toEqual([new HumanMessage("hi")]);
  });
});

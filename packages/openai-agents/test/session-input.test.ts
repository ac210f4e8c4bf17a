// What callers hand the session, at each public door: anything it cannot give back equal is a typed error
// naming where, and nothing is written.
import type { AgentInputItem, SessionHistoryTransactionArgs } from "@openai/agents-core";
import { freshStore, STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { SkeinError } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createSkeinSession,
  SessionHistoryError,
  SessionItemError,
  SessionOptionsError,
  type SkeinSession,
} from "../src/index.js";

const user = (text: string): AgentInputItem => ({ role: "user", content: text });

function cyclicItem(): AgentInputItem {
  const cycle: Record<string, unknown> = { name: "loop" };
  cycle.self = cycle;
  return { ...user("cyclic"), providerData: cycle } as AgentInputItem;
}

/** Item lists the session cannot give back, with the index each error must name. */
const BAD_LISTS: Array<[string, () => unknown[], number]> = [
  ["a cyclic providerData", () => [user("ok"), cyclicItem()], 1],
  ["a sparse list", () => Object.assign(new Array(3), { 0: user("ok"), 2: user("after") }), 1],
  ["a bare string", () => ["hello"], 0],
  ["a number and a boolean", () => [user("ok"), 42, true], 1],
  ["null", () => [null], 0],
  ["an array in place of an item", () => [[user("nested")]], 0],
  ["bytes in place of an item", () => [new Uint8Array([1])], 0],
];

describe.each(STORE_KINDS)("session input on %s", (kind) => {
  let test: TestStore;
  let session: SkeinSession;
  beforeEach(async () => {
    test = await freshStore(kind);
    session = await createSkeinSession({ store: test.store, sessionId: "input-1" });
    await session.addItems([user("start")]);
  });
  afterEach(() => test.dispose());

  /** The error `promise` rejects with, after checking the session still holds only "start". */
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(await session.getItems()).toEqual([user("start")]);
    return error;
  };

  it.each(BAD_LISTS)(
    "addItems refuses %s with a SessionItemError naming the item",
    async (_name, list, index) => {
      const error = await refusal(session.addItems(list() as AgentInputItem[]));
      expect(SessionItemError.isInstance(error)).toBe(true);
      expect((error as SessionItemError).itemIndex).toBe(index);
      expect((error as Error).message).toContain(`items.${index}`);
    },
  );

  it.each(BAD_LISTS)("an append_items transaction refuses %s the same way", async (_name, list, index) => {
    const transaction = {
      type: "append_items",
      items: list(),
    } as SessionHistoryTransactionArgs["transaction"];
    const error = await refusal(session.applyHistoryTransaction({ operationId: "op-bad", transaction }));
    expect(SessionItemError.isInstance(error)).toBe(true);
    expect((error as SessionItemError).itemIndex).toBe(index);
    // Refused before the operation id was recorded: a good transaction may use it next.
    await session.applyHistoryTransaction({
      operationId: "op-bad",
      transaction: { type: "append_items", items: [user("good")] },
    });
    expect(await session.getItems()).toEqual([user("start"), user("good")]);
  });

  it("addItems refuses a single item passed without its array", async () => {
    const error = await refusal(session.addItems(user("alone") as unknown as AgentInputItem[]));
    expect(SessionItemError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("not an array of items");
  });

  it("a replace_suffix refuses a bad replacement, naming the list and the index", async () => {
    const error = await refusal(
      session.applyHistoryTransaction({
        operationId: "op-suffix",
        transaction: {
          type: "replace_suffix",
          expectedSuffix: [user("start")],
          replacement: [user("fine"), cyclicItem()],
        },
      }),
    );
    expect(SessionItemError.isInstance(error)).toBe(true);
    expect((error as SessionItemError).path.slice(0, 2)).toEqual(["replacement", 1]);
  });

  it("an accessor that throws is reported typed, without its message, and nothing is written", async () => {
    const secret = "api-key-secret";
    const throwing = () => {
      throw new Error(secret);
    };
    const onOperationId = Object.defineProperty({}, "operationId", { get: throwing, enumerable: true });
    const transaction = Object.defineProperty({ type: "append_items" }, "items", {
      get: throwing,
      enumerable: true,
    });
    const item = Object.defineProperty({ role: "user" }, "content", { get: throwing, enumerable: true });
    const attempts: Array<() => Promise<unknown>> = [
      () => session.applyHistoryTransaction(onOperationId as SessionHistoryTransactionArgs),
      () =>
        session.applyHistoryTransaction({
          operationId: "op-getter",
          transaction,
        } as SessionHistoryTransactionArgs),
      () => session.addItems([item as AgentInputItem]),
    ];
    for (const attempt of attempts) {
      const error = await refusal(attempt());
      expect(SkeinError.isInstance(error)).toBe(true);
      expect(String((error as Error).message)).not.toContain(secret);
      expect(JSON.stringify((error as Error).cause ?? null)).not.toContain(secret);
      expect((error as Error).cause).toBeUndefined();
    }
  });

  it("a non-enumerable field (which JSON would drop without a word) is refused, nothing written", async () => {
    const item = { role: "user", content: "hi" } as AgentInputItem;
    Object.defineProperty(item, "providerData", { value: { keep: "me" }, enumerable: false });
    const before = await session.getItems();
    for (const attempt of [
      () => session.addItems([item]),
      () =>
        session.applyHistoryTransaction({
          operationId: "op-hidden",
          transaction: { type: "append_items", items: [item] },
        }),
    ]) {
      const error = await refusal(attempt());
      expect(SessionItemError.isInstance(error)).toBe(true);
      expect((error as SessionItemError).path).toContain("providerData");
    }
    expect(await session.getItems()).toEqual(before);
  });

  it("a transaction with fields the SDK does not define, or of no known type, is refused", async () => {
    const transactions = [
      { type: "append_items", items: [user("x")], metadata: { attempt: 1 } },
      { type: "replace_suffix", expectedSuffix: [user("start")], replacement: [], extra: true },
      { type: "unknown" },
      null,
    ];
    for (const transaction of transactions) {
      const error = await refusal(
        session.applyHistoryTransaction({
          operationId: "op-fields",
          transaction,
        } as unknown as SessionHistoryTransactionArgs),
      );
      expect(SessionHistoryError.isInstance(error)).toBe(true);
    }
  });
});

describe("createSkeinSession refuses options it cannot use, saying what it expects", () => {
  it.each<[string, unknown]>([
    ["no store and no thread", {}],
    ["a store URL", { store: "memory:" }],
    ["a store URL with a password, not quoted", { store: "redis://user:hunter2@localhost:6379" }],
    ["something that is not a store", { store: { url: "memory:" } }],
    ["a thread's JSON state in place of a thread", { thread: { $type: "memory", id: "t" } }],
    ["no options at all", undefined],
  ])("%s", async (_name, options) => {
    const error = await createSkeinSession(options as never).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(SessionOptionsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("createSkeinSession takes { store");
    expect((error as Error).message).not.toContain("hunter2");
  });
});

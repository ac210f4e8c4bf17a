import { freshStore, SERVERLESS_STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { ConcurrencyError, type Thread } from "@skein/thread-core";
import { convertToModelMessages, streamText, type UIMessage } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatArgumentError, loadChat, MessageMappingError, persistChat, saveChat } from "../src/index.js";
import { answering } from "./mock-model.js";

const hi: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Hi!" }] };
const hello: UIMessage = { id: "a1", role: "assistant", parts: [{ type: "text", text: "Hello." }] };

/** Calls a function of this package the way untyped callers (plain JS, a bad cast) do. */
const untyped = <Call extends (...args: never[]) => unknown>(call: Call) =>
  call as unknown as (...args: unknown[]) => ReturnType<Call>;

/** The error a promise was rejected with. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe.each(SERVERLESS_STORE_KINDS)("bad arguments to the chat functions on a %s store", (kind) => {
  let test: TestStore;
  let thread: Thread;
  beforeEach(async () => {
    test = await freshStore(kind);
    thread = await test.store.create({ id: "chat" });
    await saveChat(thread, [hi]);
  });
  afterEach(() => test.dispose());

  /** The thread holds only what the setup saved. */
  async function unchanged(): Promise<void> {
    expect(await loadChat(await test.store.get("chat"))).toEqual([hi]);
  }

  it("refuse a message without an id, naming its index, before reading the thread", async () => {
    for (const [messages, index] of [
      [[{ role: "user", parts: [{ type: "text", text: "no id" }] }], 0],
      [[hi, { role: "assistant", parts: [{ type: "text", text: "no id" }] }], 1],
      [[hi, { id: "", role: "assistant", parts: [] }], 1],
      [[hi, null], 1],
    ] as const) {
      const error = await rejectionOf(untyped(saveChat)(thread, messages));
      expect(MessageMappingError.isInstance(error)).toBe(true);
      expect((error as MessageMappingError).path[0]).toBe(index);
    }
    await unchanged();
  });

  it("refuse a single message where an array is expected, and say to wrap it", async () => {
    const error = await rejectionOf(untyped(saveChat)(thread, hello));
    expect(ChatArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ call: "saveChat", argument: "uiMessages" });
    expect((error as Error).message).toContain("pass [message]");
    await unchanged();
  });

  it("refuse a missing thread, or a Promise of one (a forgotten await)", async () => {
    for (const [call, run] of [
      ["saveChat", () => untyped(saveChat)(null, [hello])],
      ["saveChat", () => untyped(saveChat)(undefined, [hello])],
      ["saveChat", () => untyped(saveChat)("chat", [hello])],
      ["saveChat", () => untyped(saveChat)(test.store.get("chat"), [hello])],
      ["loadChat", () => untyped(loadChat)(undefined)],
      ["loadChat", () => untyped(loadChat)(test.store.get("chat"))],
    ] as const) {
      const error = await rejectionOf(run());
      expect(ChatArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ call, argument: "thread" });
    }
    const promised = await rejectionOf(untyped(loadChat)(test.store.get("chat")));
    expect((promised as Error).message).toContain("missing await");
    await unchanged();
  });

  it("refuse options that are not an object", async () => {
    const error = await rejectionOf(untyped(saveChat)(thread, [hi, hello], null));
    expect(ChatArgumentError.isInstance(error)).toBe(true);
    await unchanged();
  });

  it("read ifRevision as thread-core does: a number or its digits as text, anything else refused", async () => {
    const stale = thread.revision as number;
    await saveChat(thread, [hi, hello], { ifRevision: stale });
    const afterSave = thread.revision as number;
    const refused = await rejectionOf(saveChat(thread, [hi, hello, hi2()], { ifRevision: stale }));
    expect(ConcurrencyError.isInstance(refused)).toBe(true);

    // "abc" never equals a revision: a typed error about the argument, never a ConcurrencyError.
    const wrong = await rejectionOf(untyped(saveChat)(thread, [hi, hello, hi2()], { ifRevision: "abc" }));
    expect(ChatArgumentError.isInstance(wrong)).toBe(true);
    expect(ConcurrencyError.isInstance(wrong)).toBe(false);
    expect((wrong as Error).message).toContain("ifRevision");
    expect(await loadChat(await test.store.get("chat"))).toEqual([hi, hello]);

    // The revision as it arrives from a header or a form: read as that number, so the save lands.
    await untyped(saveChat)(thread, [hi, hello, hi2()], { ifRevision: String(afterSave) });
    expect(await loadChat(await test.store.get("chat"))).toEqual([hi, hello, hi2()]);
  });
});

function hi2(): UIMessage {
  return { id: "u2", role: "user", parts: [{ type: "text", text: "Again." }] };
}

describe("persistChat checks its arguments before a reply streams", () => {
  let test: TestStore;
  beforeEach(async () => {
    test = await freshStore("memory");
    await test.store.create({ id: "chat" });
  });
  afterEach(() => test.dispose());

  /** The README's route, with the thread argument the caller got wrong. */
  async function route(thread: unknown): Promise<string> {
    const result = streamText({ model: answering("Hello."), messages: await convertToModelMessages([hi]) });
    const options = await untyped(persistChat)({ thread, messages: [hi] });
    return result.toUIMessageStreamResponse(options).text();
  }

  it("refuse a Promise of a thread (a forgotten await) or no thread at all", async () => {
    for (const thread of [test.store.get("chat"), undefined, null]) {
      const error = await rejectionOf(route(thread));
      expect(ChatArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ call: "persistChat", argument: "thread" });
    }
    expect(await rejectionOf(untyped(persistChat)())).toSatisfy(
      ChatArgumentError.isInstance.bind(ChatArgumentError),
    );
  });

  it("refuse messages that are not an array and an ifRevision that is not a number", async () => {
    const thread = await test.store.get("chat");
    for (const options of [
      { thread, messages: hi },
      { thread, messages: [hi], ifRevision: "zero" },
    ]) {
      expect(ChatArgumentError.isInstance(await rejectionOf(untyped(persistChat)(options)))).toBe(true);
    }
    expect(await loadChat(thread)).toEqual([]);
  });
});

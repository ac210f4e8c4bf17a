import type { AgentInputItem } from "@openai/agents-core";
import { freshStore, STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import {
  type Message,
  type Thread,
  ThreadNotFoundError,
  UnsupportedOperationError,
  type WorkflowThread,
} from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createSkeinSession,
  SessionHistoryError,
  SessionItemError,
  type SkeinSession,
} from "../src/index.js";

const user = (text: string): AgentInputItem => ({ role: "user", content: text });
const assistant = (text: string, id = `msg_${text}`): AgentInputItem => ({
  id,
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, providerData: { annotations: [] } }],
});
const call = (callId: string, city: string): AgentInputItem => ({
  type: "function_call",
  id: `fc_${callId}`,
  callId,
  name: "weather",
  arguments: JSON.stringify({ city }),
  status: "completed",
  providerData: { raw: new Uint8Array([0, 1, 254, 255]), nested: { "$skein.bytes": "not bytes" } },
});
const result = (callId: string, output: string): AgentInputItem => ({
  type: "function_call_result",
  callId,
  name: "weather",
  status: "completed",
  output: { type: "text", text: output },
});
const reasoning: AgentInputItem = {
  type: "reasoning",
  id: "rs_1",
  content: [{ type: "input_text", text: "thinking" }],
  providerData: { encryptedContent: "enc" },
};

describe.each(STORE_KINDS)("SkeinSession on %s", (kind) => {
  let test: TestStore;
  let session: SkeinSession;
  beforeEach(async () => {
    test = await freshStore(kind);
    session = await createSkeinSession({ store: test.store, sessionId: "chat-1" });
  });
  afterEach(() => test.dispose());

  it("gives back every item deep-equal, bytes included, and writes skein contents other readers understand", async () => {
    const items = [
      user("weather in Paris?"),
      reasoning,
      call("call_1", "Paris"),
      result("call_1", "sunny"),
      assistant("Sunny.", "msg_1"),
    ];
    await session.addItems(items);
    expect(await session.getItems()).toEqual(items);
    const again = await createSkeinSession({ store: test.store, sessionId: "chat-1" });
    expect(await again.getItems()).toEqual(items);
    const messages = await session.thread.messages();
    expect(messages.map((message: Message) => [message.role, message.contents])).toEqual([
      ["user", [{ type: "text", text: "weather in Paris?" }]],
      ["assistant", [{ type: "reasoning", text: "thinking" }]],
      [
        "assistant",
        [{ type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Paris" } }],
      ],
      ["tool", [{ type: "function_result", callId: "call_1", result: { type: "text", text: "sunny" } }]],
      ["assistant", [{ type: "text", text: "Sunny." }]],
    ]);
    expect(await session.getSessionId()).toBe("chat-1");
    // Each text, arguments and output is stored once: the kept item refers to the contents.
    for (const message of messages) {
      const stored = JSON.stringify(message.metadata);
      for (const text of ["weather in Paris?", "thinking", "Paris", "sunny", "Sunny."]) {
        expect(stored).not.toContain(text);
      }
    }
  });

  it("gives back items whose own keys look like the encoding, and refuses values it could not give back", async () => {
    const odd = {
      role: "user",
      content: [
        { type: "input_text", text: "hi", providerData: { "$skein.ref": 0, "$skein.object": { a: 1 } } },
      ],
      providerData: { "$skein.bytes": "AAAA" },
    } as unknown as AgentInputItem;
    const plainArguments = { ...call("c2", "Rome"), arguments: '{ "city": "Rome" }' } as AgentInputItem;
    await session.addItems([odd, plainArguments]);
    expect(await session.getItems()).toEqual([odd, plainArguments]);
    const bad = {
      role: "user",
      content: "x",
      providerData: { when: new Date() },
    } as unknown as AgentInputItem;
    expect(SessionItemError.isInstance(await caught(session.addItems([bad])))).toBe(true);
    expect(await session.getItems()).toHaveLength(2);
  });

  it("getItems(limit) gives the latest items in order, across pages", async () => {
    const items = Array.from({ length: 150 }, (_, index) => user(`m${index}`));
    await session.addItems(items);
    expect(await session.getItems(3)).toEqual(items.slice(-3));
    expect(await session.getItems(100)).toEqual(items.slice(-100));
    expect(await session.getItems(500)).toEqual(items);
    expect(await session.getItems(0)).toEqual([]);
  });

  it("popItem and clearSession are rollbacks: history keeps what they removed", async () => {
    await session.addItems([user("a"), assistant("b")]);
    expect(await session.popItem()).toEqual(assistant("b"));
    expect(await session.getItems()).toEqual([user("a")]);
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
    const history = await session.thread.history();
    const rollbacks = history.filter((event) => event.kind === "rollback");
    expect(rollbacks).toHaveLength(2);
    const first = rollbacks[0];
    expect(
      first?.kind === "rollback" && (await (await session.thread.at(first.from)).messages()),
    ).toHaveLength(2);
  });

  it("append_items and replace_suffix are atomic and applied once per operationId", async () => {
    await session.addItems([user("q")]);
    const append = { type: "append_items" as const, items: [call("c1", "Oslo"), result("c1", "rain")] };
    await session.applyHistoryTransaction({ operationId: "op-1", transaction: append });
    await session.applyHistoryTransaction({ operationId: "op-1", transaction: append });
    expect(await session.getItems()).toEqual([user("q"), call("c1", "Oslo"), result("c1", "rain")]);

    const replace = {
      type: "replace_suffix" as const,
      expectedSuffix: [result("c1", "rain")],
      replacement: [result("c1", "snow"), assistant("Snow.")],
    };
    await session.applyHistoryTransaction({ operationId: "op-2", transaction: replace });
    // A retry from another process: no second change, though the suffix no longer matches.
    const other = await createSkeinSession({ store: test.store, sessionId: "chat-1" });
    await other.applyHistoryTransaction({ operationId: "op-2", transaction: replace });
    expect(await session.getItems()).toEqual([
      user("q"),
      call("c1", "Oslo"),
      result("c1", "snow"),
      assistant("Snow."),
    ]);
    const revision = (await reread(session.thread)).revision;

    // The same id with another transaction, and a suffix that does not match: refused, nothing written.
    const reuse = await caught(
      session.applyHistoryTransaction({
        operationId: "op-1",
        transaction: { type: "append_items", items: [user("x")] },
      }),
    );
    expect(SessionHistoryError.isInstance(reuse)).toBe(true);
    const stale = await caught(
      session.applyHistoryTransaction({
        operationId: "op-3",
        transaction: { type: "replace_suffix", expectedSuffix: [result("c1", "rain")], replacement: [] },
      }),
    );
    expect(SessionHistoryError.isInstance(stale)).toBe(true);
    expect((await reread(session.thread)).revision).toBe(revision);
    // An empty expected suffix appends.
    await session.applyHistoryTransaction({
      operationId: "op-4",
      transaction: { type: "replace_suffix", expectedSuffix: [], replacement: [user("more")] },
    });
    expect((await session.getItems(1))[0]).toEqual(user("more"));
  });

  it("concurrent pops from two processes remove different items; concurrent tries of one transaction apply it once", async () => {
    await session.addItems([user("a"), user("b"), user("c"), user("d")]);
    const other = await createSkeinSession({ store: test.store, sessionId: "chat-1" });
    const popped = await Promise.all([
      session.popItem(),
      other.popItem(),
      session.popItem(),
      other.popItem(),
    ]);
    expect(popped.map((item) => (item as { content: string }).content).sort()).toEqual(["a", "b", "c", "d"]);
    expect(await session.getItems()).toEqual([]);
    const append = { type: "append_items" as const, items: [user("once")] };
    await Promise.all(
      [session, other, session, other].map((each) =>
        each.applyHistoryTransaction({ operationId: "op-once", transaction: append }),
      ),
    );
    expect(await session.getItems()).toEqual([user("once")]);
  });

  it("replace_function_call rewrites the call in one change, keeping what follows", async () => {
    await session.addItems([user("q"), call("c1", "Oslo"), result("c1", "rain"), assistant("Rain.")]);
    const replacement = { ...call("c1", "Bergen"), providerData: { rewritten: true } } as AgentInputItem & {
      type: "function_call";
    };
    await session.applyHistoryMutations({
      mutations: [{ type: "replace_function_call", callId: "c1", replacement }],
    });
    expect(await session.getItems()).toEqual([
      user("q"),
      replacement,
      result("c1", "rain"),
      assistant("Rain."),
    ]);
    const revision = (await reread(session.thread)).revision;
    await session.applyHistoryMutations({
      mutations: [{ type: "replace_function_call", callId: "c1", replacement }],
    });
    expect((await reread(session.thread)).revision).toBe(revision);
  });

  it("reads messages other skein writers appended as items", async () => {
    await session.thread.append([
      { role: "user", text: "hello" },
      {
        role: "assistant",
        contents: [
          { type: "text", text: "calling" },
          { type: "function_call", callId: "c9", name: "lookup", arguments: { q: 1 } },
        ],
      },
    ]);
    expect(await session.getItems()).toEqual([
      { role: "user", content: [{ type: "input_text", text: "hello" }] },
      { role: "assistant", status: "completed", content: [{ type: "output_text", text: "calling" }] },
      { type: "function_call", callId: "c9", name: "lookup", arguments: '{"q":1}', status: "completed" },
    ]);
    // Popping the last item of a two-item message keeps the first, in one change.
    await session.popItem();
    expect(await session.getItems()).toEqual([
      { role: "user", content: [{ type: "input_text", text: "hello" }] },
      { role: "assistant", status: "completed", content: [{ type: "output_text", text: "calling" }] },
    ]);
  });
});

describe("createSkeinSession", () => {
  it("makes a new id when none is given, and refuses a thread type it cannot use", async () => {
    const test = await freshStore("memory");
    const session = await createSkeinSession({ store: test.store });
    expect(await session.getSessionId()).toMatch(/.+/);
    expect(ThreadNotFoundError.isInstance(await caught(test.store.get("nope")))).toBe(true);
    // A workflow is refused with the way to use it: one of its sub-threads is a session.
    const workflow = (await test.store.create("workflow", { threads: ["main"] })) as WorkflowThread;
    const refused = await caught(createSkeinSession({ thread: workflow }));
    expect(UnsupportedOperationError.isInstance(refused)).toBe(true);
    const main = await createSkeinSession({ thread: workflow.thread("main") });
    await main.addItems([user("hi")]);
    expect(await main.getItems()).toEqual([user("hi")]);
    await test.dispose();
  });
});

async function reread(thread: Thread): Promise<Thread> {
  await thread.refresh();
  return thread;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

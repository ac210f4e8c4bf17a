import { freshStore, SERVERLESS_STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { ConcurrencyError, type Thread } from "@skein/thread-core";
import { normalizeMessage } from "@skein/thread-core/driver";
import type { UIMessage } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ChatMismatchError,
  loadChat,
  MessageMappingError,
  saveChat,
  switchBranch,
  toUIMessages,
} from "../src/index.js";
import { everyUIPart } from "./fixtures.js";

const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const assistant = (id: string, ...parts: UIMessage["parts"]): UIMessage => ({ id, role: "assistant", parts });
const asking: UIMessage["parts"][number] = {
  type: "tool-delete",
  toolCallId: "call-1",
  state: "approval-requested",
  input: { path: "/tmp/x" },
  approval: { id: "approval-1" },
};

/**
 * The thread as a type without `message(id)` would give it (the method is optional on `Thread`): saveChat then
 * reads the whole chat instead of the part from the client's first message on.
 */
function withoutLookup(thread: Thread): Thread {
  return new Proxy(thread, {
    get(target, key) {
      if (key === "message") return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const VARIANTS = SERVERLESS_STORE_KINDS.flatMap((kind) => [
  { kind, reads: "from the first given message", open: (thread: Thread) => thread },
  { kind, reads: "the whole chat", open: withoutLookup },
]);

describe.each(VARIANTS)("saveChat and loadChat on a $kind store, reading $reads", ({ kind, open }) => {
  let test: TestStore;
  let store: { create(): Promise<Thread>; get(id: string): Promise<Thread> };
  beforeEach(async () => {
    test = await freshStore(kind);
    store = {
      create: async () => open(await test.store.create()),
      get: async (id) => open(await test.store.get(id)),
    };
  });
  afterEach(() => test.dispose());

  it("append what is new and load the chat back equal", async () => {
    const thread = await store.create();
    await saveChat(thread, everyUIPart.slice(0, 2));
    const result = await saveChat(thread, everyUIPart);
    expect(result.appended.map((message) => message.id)).toEqual(["assistant-1", "assistant-empty"]);
    expect(await loadChat(await store.get(thread.id))).toEqual(everyUIPart);
  });

  it("write nothing when the same chat is saved twice", async () => {
    const thread = await store.create();
    const first = await saveChat(thread, everyUIPart);
    const again = await saveChat(thread, everyUIPart);
    expect(again).toEqual({ appended: [], revision: first.revision });
    await thread.refresh();
    expect(thread.revision).toBe(first.revision);
    expect(await thread.history()).toEqual([]);
  });

  it("replace a message re-sent with new parts, in one change, keeping the old one in history", async () => {
    const thread = await store.create();
    const asked = [user("u1", "delete /tmp/x"), assistant("a1", { type: "step-start" }, asking)];
    const saved = await saveChat(thread, asked);
    const approved = [
      asked[0] as UIMessage,
      assistant("a1", { type: "step-start" }, {
        ...asking,
        state: "approval-responded",
        approval: { id: "approval-1", approved: true },
      } as UIMessage["parts"][number]),
    ];
    const replaced = await saveChat(thread, approved);
    expect(replaced.replacedFrom).toBe("a1");
    expect(replaced.revision).toBe((saved.revision ?? 0) + 1);
    expect(await loadChat(thread)).toEqual(approved);
    const [rollback] = await thread.history();
    expect(rollback).toMatchObject({ kind: "rollback" });
    if (rollback?.kind !== "rollback") throw new Error("expected a rollback event");
    const before = await thread.at(rollback.from);
    expect(toUIMessages(await before.messages())).toEqual(asked);
    // Saving the new version again is a no-op.
    expect((await saveChat(thread, approved)).appended).toEqual([]);
  });

  it("replace a regenerated answer, and the whole chat from its first message", async () => {
    const thread = await store.create();
    await saveChat(thread, [user("u1", "hi"), assistant("a1", { type: "text", text: "hello" })]);
    const regenerated = [user("u1", "hi"), assistant("a2", { type: "text", text: "hey" })];
    expect((await saveChat(thread, regenerated)).replacedFrom).toBe("a1");
    // The answer replaced is a version of the new one: loadChat says which of how many is shown.
    const loaded = await loadChat(thread);
    expect(loaded).toEqual([
      regenerated[0],
      { ...regenerated[1], metadata: { skein: { index: 1, count: 2 } } },
    ]);
    // Saving the chat as loaded writes nothing: skein's metadata is read from the thread, never stored.
    expect((await saveChat(thread, loaded)).appended).toEqual([]);
    // Either version is shown on request, the other kept.
    const first = await switchBranch({ store, chatId: thread.id, messageId: "a2", to: 0 });
    expect(first).toEqual([
      user("u1", "hi"),
      { ...assistant("a1", { type: "text", text: "hello" }), metadata: { skein: { index: 0, count: 2 } } },
    ]);
    expect(await switchBranch({ store, chatId: thread.id, messageId: "a1", to: "a2" })).toEqual(loaded);
    // An edited question keeps its id (sendMessage({ messageId })): the question asked before is a version too.
    const edited = [user("u1", "hi there"), assistant("a3", { type: "text", text: "hey there" })];
    expect((await saveChat(thread, edited)).replacedFrom).toBe("u1");
    expect(await loadChat(thread)).toEqual([
      { ...edited[0], metadata: { skein: { index: 1, count: 2 } } },
      edited[1],
    ]);
    expect(await switchBranch({ store, chatId: thread.id, messageId: "u1", to: 0 })).toEqual([
      { ...user("u1", "hi"), metadata: { skein: { index: 0, count: 2 } } },
      { ...assistant("a2", { type: "text", text: "hey" }), metadata: { skein: { index: 1, count: 2 } } },
    ]);
  });

  it("append a list of only new messages, and refuse one that starts with a new message before stored ones", async () => {
    const thread = await store.create();
    await saveChat(thread, [user("u1", "hi"), assistant("a1", { type: "text", text: "hello" })]);
    await saveChat(thread, [user("u2", "more")]);
    expect((await loadChat(thread)).map((message) => message.id)).toEqual(["u1", "a1", "u2"]);
    const error = await saveChat(thread, [user("u0", "?"), user("u2", "more")]).catch((caught) => caught);
    expect(ChatMismatchError.isInstance(error)).toBe(true);
    const twice = await saveChat(thread, [user("u3", "a"), user("u3", "b")]).catch((caught) => caught);
    expect(MessageMappingError.isInstance(twice)).toBe(true);
    // A client that sent an older list (fewer messages) changes nothing.
    expect((await saveChat(thread, [user("u1", "hi")])).appended).toEqual([]);
    expect((await loadChat(thread)).map((message) => message.id)).toEqual(["u1", "a1", "u2"]);
  });

  it("plan a replacement again when another writer changed the thread between the read and the write", async () => {
    const thread = await store.create();
    await saveChat(thread, [user("u1", "hi"), assistant("a1", { type: "text", text: "hello" })]);
    // Another writer edits the first message right after saveChat's read, before its write.
    let raced = false;
    const racing = new Proxy(thread, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key !== "messages" || typeof value !== "function")
          return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          const read = await value.apply(target, args);
          if (!raced) {
            raced = true;
            const other = await store.get(thread.id);
            await other.rollback("start", {
              append: { id: "u1", role: "user", text: "hi, edited elsewhere" },
            });
          }
          return read;
        };
      },
    });
    const edited = [user("u1", "hi"), assistant("a1", { type: "text", text: "hello again" })];
    const result = await saveChat(racing, edited);
    expect(raced).toBe(true);
    // Planned on the stale read, the save would have kept the other writer's u1 under the client's answer; planned
    // again, the thread holds what the client holds, and the other version stays in history.
    expect(result.replacedFrom).toBe("u1");
    // The other writer's question is the version the client's edit replaced.
    expect(await loadChat(thread)).toEqual([
      { ...edited[0], metadata: { skein: { index: 1, count: 2 } } },
      edited[1],
    ]);
    const rollbacks = (await thread.history()).filter((event) => event.kind === "rollback");
    expect(rollbacks).toHaveLength(2);
    const last = rollbacks[1];
    if (last?.kind !== "rollback") throw new Error("expected a rollback event");
    expect(toUIMessages(await (await thread.at(last.from)).messages())).toEqual([
      user("u1", "hi, edited elsewhere"),
    ]);
  });

  it("refuse a stale ifRevision, writing nothing", async () => {
    const thread = await store.create();
    const { revision } = await saveChat(thread, [user("u1", "hi")]);
    await saveChat(thread, [user("u1", "hi"), assistant("a1", { type: "text", text: "hello" })]);
    for (const messages of [
      [user("u1", "hi"), assistant("a1", { type: "text", text: "hello" }), user("u2", "again")],
      [user("u1", "hi"), assistant("a1", { type: "text", text: "changed" })],
    ]) {
      const error = await saveChat(thread, messages, { ifRevision: revision }).catch((caught) => caught);
      expect(ConcurrencyError.isInstance(error)).toBe(true);
    }
    expect((await loadChat(thread)).map((message) => message.id)).toEqual(["u1", "a1"]);
  });

  it("write nothing when a chat other writers made is saved as loaded, and replace its whole turn", async () => {
    const thread = await store.create();
    await thread.append(
      [
        { role: "user", text: "weather?" },
        {
          role: "assistant",
          contents: [{ type: "function_call", callId: "c1", name: "weather", arguments: {} }],
        },
        { role: "tool", contents: [{ type: "function_result", callId: "c1", result: "sunny" }] },
        { role: "assistant", text: "Sunny." },
        { role: "user", text: "thanks" },
      ].map((input) => normalizeMessage(input)),
    );
    const chat = await loadChat(thread);
    // The assistant turn (call, result, answer) is one UI message.
    expect(chat.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const revision = thread.revision;
    expect((await saveChat(thread, chat)).appended).toEqual([]);
    expect(thread.revision).toBe(revision);
    // A new version of that turn replaces the three skein messages it was read from, and what followed.
    const changed = [
      chat[0] as UIMessage,
      assistant(chat[1]?.id ?? "", { type: "text", text: "Sunny, 21°." }),
    ];
    expect((await saveChat(thread, changed)).replacedFrom).toBe(chat[1]?.id);
    expect(await loadChat(thread)).toEqual(changed);
    expect(await thread.messages()).toHaveLength(2);
    expect(thread.revision).toBe((revision ?? 0) + 1);
  });
});

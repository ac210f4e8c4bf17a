import { freshStore, SERVERLESS_STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { ConcurrencyError, InvalidListOptionsError, SkeinError } from "@skein/thread-core";
import type { UIMessage } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatArgumentError, listChats, loadChat, saveChat } from "../src/index.js";

const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

describe.each(SERVERLESS_STORE_KINDS)("listChats and saveChat's owner and title on a %s store", (kind) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await freshStore(kind);
  });
  afterEach(() => test.dispose());

  it("a sidebar: one owner's chats, most recently changed first, with titles, in pages", async () => {
    const { store } = test;
    for (const [id, owner, title] of [
      ["trip", "u-7", "Trip to Lyon"],
      ["taxes", "u-7", "Taxes"],
      ["theirs", "u-8", "Not yours"],
    ] as const) {
      await saveChat(await store.create({ id }), [user(`${id}-1`, "hello")], { owner, title });
      await pause();
    }
    await saveChat(await store.get("trip"), [user("trip-1", "hello"), user("trip-2", "three days")]);

    const first = await listChats({ store, owner: "u-7", limit: 1 });
    expect(first.chats).toEqual([
      expect.objectContaining({ id: "trip", title: "Trip to Lyon", owner: "u-7", messageCount: 2 }),
    ]);
    const second = await listChats({ store, owner: "u-7", limit: 1, cursor: first.cursor });
    expect(second.chats.map((chat) => [chat.id, chat.title])).toEqual([["taxes", "Taxes"]]);
    expect(second.cursor).toBeUndefined();
    expect((await listChats({ store, owner: "u-8" })).chats.map((chat) => chat.id)).toEqual(["theirs"]);
    expect((await listChats({ store })).chats.map((chat) => chat.id)).toEqual(["trip", "theirs", "taxes"]);
  });

  it("saving the same owner and title again writes nothing; a new title is set; ifRevision still guards", async () => {
    const { store } = test;
    const thread = await store.create({ id: "chat" });
    const first = await saveChat(thread, [user("m1", "hi")], { owner: "u-7", title: "Hi" });
    const again = await saveChat(thread, [user("m1", "hi")], { owner: "u-7", title: "Hi" });
    expect(again.revision).toBe(first.revision);
    const renamed = await saveChat(thread, [user("m1", "hi"), user("m2", "more")], {
      title: "Renamed",
      ifRevision: again.revision,
    });
    expect(renamed.appended.map((message) => message.id)).toEqual(["m2"]);
    const read = (await store.get("chat")) as { title?: string; owner?: string };
    expect([read.owner, read.title]).toEqual(["u-7", "Renamed"]);
    const stale = await saveChat(thread, [user("m3", "late")], {
      title: "Late",
      ifRevision: first.revision,
    }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ConcurrencyError);
    expect((await store.get("chat")) as { title?: string }).toMatchObject({ title: "Renamed" });
  });

  it("an owner the store refuses writes no message; bad listChats options are typed errors", async () => {
    const { store } = test;
    const thread = await store.create({ id: "refused" });
    const error = await saveChat(thread, [user("m1", "hi")], { owner: "x".repeat(300) }).catch(
      (e: unknown) => e,
    );
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(await loadChat(await store.get("refused"))).toEqual([]);
    await expect(listChats({ store, limit: 0 })).rejects.toBeInstanceOf(InvalidListOptionsError);
    await expect(listChats({ store, cursor: "made-up" })).rejects.toBeInstanceOf(InvalidListOptionsError);
    await expect(listChats({ store: undefined as never })).rejects.toBeInstanceOf(ChatArgumentError);
  });
});

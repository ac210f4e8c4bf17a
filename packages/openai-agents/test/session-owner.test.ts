import { freshStore, SERVERLESS_STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkeinSession, SessionOptionsError } from "../src/index.js";

describe.each(SERVERLESS_STORE_KINDS)("createSkeinSession({ owner }) on a %s store", (kind) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await freshStore(kind);
  });
  afterEach(() => test.dispose());

  it("a new session's thread is its owner's; that owner resumes it, another is refused", async () => {
    const { store } = test;
    const session = await createSkeinSession({ store, sessionId: "s-1", owner: "u-7", title: "Weather" });
    await session.addItems([{ role: "user", content: "Weather in Paris?" }]);
    const page = await store.list({ owner: "u-7", order: "updated" });
    expect(page.items.map((item) => [item.id, item.title, item.messageCount])).toEqual([
      ["s-1", "Weather", 1],
    ]);

    const resumed = await createSkeinSession({ store, sessionId: "s-1", owner: "u-7" });
    expect(await resumed.getItems()).toHaveLength(1);
    const other = await createSkeinSession({ store, sessionId: "s-1", owner: "u-8" }).catch(
      (error: unknown) => error,
    );
    expect(SessionOptionsError.isInstance(other)).toBe(true);
    expect((other as Error).message).not.toContain("u-7");
    // Without an owner, the session resumes as before.
    expect(await (await createSkeinSession({ store, sessionId: "s-1" })).getItems()).toHaveLength(1);
  });

  it("owner and title go with a store and are strings", async () => {
    const { store } = test;
    const thread = await store.create({ id: "t" });
    for (const options of [
      { thread, owner: "u-7" },
      { store, owner: 7 },
      { store, title: { text: "x" } },
    ]) {
      const error = await createSkeinSession(options as never).catch((caught: unknown) => caught);
      expect(SessionOptionsError.isInstance(error)).toBe(true);
    }
  });
});

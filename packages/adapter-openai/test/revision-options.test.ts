import { ConcurrencyError, type Thread, UnsupportedOperationError } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, conversationWith, type Harness, startHarness, texts } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

/** What a refused change must leave as it was. */
async function snapshot(harness: Harness, id: string) {
  const thread = await harness.store.get(id);
  return {
    revision: thread.revision,
    messages: texts(await thread.messages()),
    history: await thread.history(),
  };
}

const storedIds = async (harness: Harness) =>
  (await harness.store.list()).items.map((item) => item.id).sort();

describe("ifRevision on checkpoint, fork and delete (issue 18)", () => {
  it("openai.responses checks it on checkpoint and fork, and refuses it on delete; nothing is written", async () => {
    const thread = await harness.store.create("openai.responses", { id: "chain" });
    await thread.append({ role: "user", text: "a" });
    const stale: Thread = await harness.store.get(thread.id);
    await thread.append({ role: "user", text: "b" });
    const before = await snapshot(harness, thread.id);
    const ids = await storedIds(harness);
    const attempts = [
      stale.checkpoint("late", { ifRevision: stale.revision as number }),
      stale.fork({ id: "late-fork", ifRevision: stale.revision as number }),
    ];
    for (const attempt of attempts) expect(ConcurrencyError.isInstance(await caught(attempt))).toBe(true);
    const refused = await caught(thread.delete({ ifRevision: thread.revision as number }));
    expect(UnsupportedOperationError.isInstance(refused)).toBe(true);
    expect(refused.message).toMatch(/^\[adapter-openai\] /);
    expect(await snapshot(harness, thread.id)).toEqual(before);
    expect(await storedIds(harness)).toEqual(ids);

    await thread.checkpoint("now", { ifRevision: thread.revision as number });
    expect(thread.revision).toBe((before.revision as number) + 1);
    const fork = await thread.fork({ id: "now-fork", ifRevision: thread.revision as number });
    expect(texts(await fork.messages())).toEqual(["a", "b"]);
  });

  it("openai.conversation has no revisions: fork and delete refuse ifRevision before any request", async () => {
    const thread = await conversationWith(harness, 2);
    const before = texts(await thread.messages());
    const ids = await storedIds(harness);
    for (const attempt of [thread.fork({ ifRevision: 0 }), thread.delete({ ifRevision: 0 })]) {
      const error = await caught(attempt);
      expect(UnsupportedOperationError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(
        /^\[adapter-openai\] Thread type "openai\.conversation" does not support/,
      );
    }
    expect(texts(await (await harness.store.get(thread.id)).messages())).toEqual(before);
    expect(await storedIds(harness)).toEqual(ids);
  });
});

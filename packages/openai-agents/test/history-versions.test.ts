// A rewrite of a session's history keeps what it replaced as a version of the first new item's place, so an
// application can list (thread.alternatives) and restore (thread.switchTo) it, not only dig it out of history().
import type { AgentInputItem } from "@openai/agents-core";
import { freshStore, STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import type { LogThread } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkeinSession } from "../src/index.js";

const user = (text: string): AgentInputItem => ({ role: "user", content: [{ type: "input_text", text }] });
const call = (id: string, city: string): AgentInputItem => ({
  type: "function_call",
  id,
  callId: "call-1",
  name: "lookup",
  arguments: JSON.stringify({ city }),
  status: "completed",
});

describe.each(STORE_KINDS)("a session history rewrite on %s", (kind) => {
  let test: TestStore;
  beforeAll(async () => {
    test = await freshStore(kind);
  });
  afterAll(() => test.dispose());

  it("applyHistoryMutations leaves the replaced items as an alternative that switchTo restores", async () => {
    const session = await createSkeinSession({ store: test.store, sessionId: "mutations" });
    const history = [user("start"), call("old", "Oslo"), user("after")];
    await session.addItems(history);
    const thread = session.thread as LogThread;
    const [, original] = await thread.messages();
    await session.applyHistoryMutations({
      mutations: [
        { type: "replace_function_call", callId: "call-1", replacement: call("new", "Bergen") as never },
      ],
    });
    expect(await session.getItems()).toEqual([user("start"), call("new", "Bergen"), user("after")]);
    const [, replacement] = await thread.messages();
    const versions = await thread.alternatives(replacement?.id as string);
    expect(versions.map((version) => [version.id, version.current])).toEqual([
      [original?.id, false],
      [replacement?.id, true],
    ]);
    await thread.switchTo(original?.id as string);
    expect(await session.getItems()).toEqual(history);
  });

  it("a replace_suffix transaction leaves the replaced suffix as an alternative", async () => {
    const session = await createSkeinSession({ store: test.store, sessionId: "transaction" });
    await session.addItems([user("start"), user("draft")]);
    const thread = session.thread as LogThread;
    const [, draft] = await thread.messages();
    await session.applyHistoryTransaction({
      operationId: "op-1",
      transaction: { type: "replace_suffix", expectedSuffix: [user("draft")], replacement: [user("final")] },
    });
    // Retried with the same operation id: nothing more is written.
    await session.applyHistoryTransaction({
      operationId: "op-1",
      transaction: { type: "replace_suffix", expectedSuffix: [user("draft")], replacement: [user("final")] },
    });
    expect(await session.getItems()).toEqual([user("start"), user("final")]);
    const [, final] = await thread.messages();
    expect((await thread.alternatives(final?.id as string)).map((version) => version.id)).toEqual([
      draft?.id,
      final?.id,
    ]);
  });
});

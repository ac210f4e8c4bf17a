// A transaction's operation id guards the history it was applied to: after clearSession the session starts
// afresh, as the SDK's own session does, while every retry before the clear stays a no-op.
import { createHash } from "node:crypto";
import type { AgentInputItem } from "@openai/agents-core";
import { freshStore, STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { canonicalJson } from "@skein/thread-core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkeinSession, SessionHistoryError, type SkeinSession } from "../src/index.js";
import { itemToMessage } from "../src/item-messages.js";
import { encodeValue } from "../src/stored-values.js";

const user = (text: string): AgentInputItem => ({ role: "user", content: text });
const append = (operationId: string, ...texts: string[]) => ({
  operationId,
  transaction: { type: "append_items" as const, items: texts.map(user) },
});

describe.each(STORE_KINDS)("clearSession and operation ids on %s", (kind) => {
  let test: TestStore;
  let session: SkeinSession;
  beforeEach(async () => {
    test = await freshStore(kind);
    session = await createSkeinSession({ store: test.store, sessionId: "clear-1" });
  });
  afterEach(() => test.dispose());

  it("applies a transaction again after a clear, with the same or another transaction", async () => {
    await session.applyHistoryTransaction(append("op-1", "committed"));
    await session.applyHistoryTransaction(append("op-1", "committed"));
    expect(await session.getItems()).toEqual([user("committed")]);
    await session.clearSession();
    await session.applyHistoryTransaction(append("op-1", "committed"));
    expect(await session.getItems()).toEqual([user("committed")]);
    // Another process retrying after the clear sees the new memory: still a no-op.
    const other = await createSkeinSession({ store: test.store, sessionId: "clear-1" });
    await other.applyHistoryTransaction(append("op-1", "committed"));
    expect(await other.getItems()).toEqual([user("committed")]);
    await other.clearSession();
    await session.applyHistoryTransaction(append("op-1", "different"));
    expect(await session.getItems()).toEqual([user("different")]);
  });

  it("forgets an id that appended nothing, though the session held nothing to clear", async () => {
    await session.applyHistoryTransaction(append("op-empty"));
    const reuse = await session.applyHistoryTransaction(append("op-empty", "x")).catch((error) => error);
    expect(SessionHistoryError.isInstance(reuse)).toBe(true);
    await session.clearSession();
    await session.applyHistoryTransaction(append("op-empty", "x"));
    expect(await session.getItems()).toEqual([user("x")]);
  });

  it("keeps its memory across popItem and replace_suffix, which are not clears", async () => {
    await session.applyHistoryTransaction(append("op-1", "a", "b"));
    await session.popItem();
    await session.applyHistoryTransaction({
      operationId: "op-2",
      transaction: { type: "replace_suffix", expectedSuffix: [user("a")], replacement: [user("c")] },
    });
    await session.applyHistoryTransaction(append("op-1", "a", "b"));
    expect(await session.getItems()).toEqual([user("c")]);
    // Clearing an empty session with nothing remembered writes nothing.
    await session.clearSession();
    const revision = session.thread.revision;
    await session.clearSession();
    await session.thread.refresh();
    expect(session.thread.revision).toBe(revision);
  });

  it("knows an operation id written before generations, until a clear", async () => {
    // What the session wrote before operation ids carried a generation: openai-agents:<digest>:<digest>.
    const transaction = append("op-old", "committed").transaction;
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const old = `openai-agents:${sha("op-old")}:${sha(canonicalJson(encodeValue(transaction))).slice(0, 32)}`;
    await session.thread.append(transaction.items.map(itemToMessage), { operationId: old });
    await session.applyHistoryTransaction(append("op-old", "committed"));
    expect(await session.getItems()).toEqual([user("committed")]);
    await expect(session.applyHistoryTransaction(append("op-old", "different"))).rejects.toSatisfy((error) =>
      SessionHistoryError.isInstance(error),
    );
    await session.clearSession();
    await session.applyHistoryTransaction(append("op-old", "committed"));
    expect(await session.getItems()).toEqual([user("committed")]);
  });
});

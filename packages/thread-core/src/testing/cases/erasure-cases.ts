import { InvalidOptionError, ThreadNotFoundError } from "../../errors.js";
import type { ThreadStore } from "../../store/store.js";
import type { Thread } from "../../thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** The string planted in every message, title, metadata value and checkpoint label of the erased owner. */
export const ERASURE_MARKER = "zq-erase-marker-7f3a";

/**
 * A thread of `owner` carrying the marker in its title, metadata, messages and a checkpoint label, with a
 * rollback in its history, so every place a thread keeps text holds it.
 */
export async function markedThread(
  store: ThreadStore,
  id: string,
  owner: string,
  marker = ERASURE_MARKER,
): Promise<Thread> {
  const thread = await store.create({ id, owner, title: `title ${marker}`, metadata: { note: marker } });
  await thread.append({ id: `${id}-m1`, role: "user", text: `first ${marker}` });
  const checkpoint = await thread.checkpoint(`label ${marker}`);
  await thread.append({ id: `${id}-m2`, role: "assistant", text: `second ${marker}` });
  await thread.rollback(checkpoint);
  await thread.append({ id: `${id}-m3`, role: "user", text: `third ${marker}` }, { operationId: `op-${id}` });
  return thread;
}

/** Issue 40: `store.erase({ owner })` removes one owner's threads everywhere in a store and reports it. */
export function erasureCases(context: SuiteContext): void {
  conformanceCase(context, "erase removes an owner's threads in the store and every scope", async () => {
    const store = context.store;
    const nested = store.scope("tenant-a").scope("team");
    await markedThread(store, "a-1", "alice");
    await markedThread(store.scope("tenant-a"), "a-2", "alice");
    await markedThread(nested, "a-3", "alice");
    await markedThread(store, "b-1", "bob", "bob's own words");
    await store.scope("tenant-a").create({ id: "b-2", owner: "bob" });
    const forked = await (await store.get("a-1")).fork({ id: "a-1-fork" }); // made by alice: hers too
    expect((forked as Thread & { owner?: string }).owner).toBe("alice");

    const phases: string[] = [];
    const report = await store.erase({ owner: "alice", onProgress: (step) => phases.push(step.phase) });
    expect(report).toMatchObject({
      owner: "alice",
      method: "deleted",
      threads: 4,
      keptShared: [],
      remote: [],
    });
    expect(report.messages).toBe(2 + 2 + 2 + 2);
    expect(report.bytes).toBeGreaterThan(0);
    expect(report.erased.map((entry) => `${entry.scopes.join("/")}:${entry.id}`).sort()).toEqual([
      ":a-1",
      ":a-1-fork",
      "tenant-a/team:a-3",
      "tenant-a:a-2",
    ]);
    expect(phases).toEqual(["scanned", "erased", "erased", "erased", "erased"]);

    for (const [where, id] of [
      [store, "a-1"],
      [store, "a-1-fork"],
      [store.scope("tenant-a"), "a-2"],
      [nested, "a-3"],
    ] as const) {
      expect(await caught(where.get(id))).toBeInstanceOf(ThreadNotFoundError);
    }
    for (const where of [store, store.scope("tenant-a"), nested]) {
      expect((await where.list({ owner: "alice" })).items).toEqual([]);
    }
    // Bob's threads are untouched.
    expect((await (await store.get("b-1")).messages()).map((message) => message.id)).toEqual([
      "b-1-m1",
      "b-1-m3",
    ]);
    expect((await store.scope("tenant-a").list({ owner: "bob" })).items.map((item) => item.id)).toEqual([
      "b-2",
    ]);

    const again = await store.erase({ owner: "alice" });
    expect(again).toMatchObject({ threads: 0, messages: 0, bytes: 0, erased: [], keptShared: [] });
  });

  conformanceCase(
    context,
    "another owner's fork keeps what it shares unless includeSharedForks",
    async () => {
      const store = context.store;
      const parent = await markedThread(store, "alice-chat", "alice");
      const theirs = await parent.fork({ id: "bob-copy", owner: "bob" });
      await theirs.append({ id: "bob-1", role: "user", text: "bob adds" });
      const deeper = await theirs.fork({ id: "carol-copy", owner: "carol" });
      // Alice's fork of a thread of Dave's: erasing Alice never touches Dave's parent.
      const daves = await store.create({ id: "dave-chat", owner: "dave" });
      await daves.append({ id: "dave-1", role: "user", text: "dave's words" });
      await daves.fork({ id: "alice-from-dave", owner: "alice" });

      const kept = await store.erase({ owner: "alice" });
      expect(kept.erased.map((entry) => entry.id).sort()).toEqual(["alice-chat", "alice-from-dave"]);
      expect(kept.keptShared.map((entry) => [entry.id, entry.owner]).sort()).toEqual([
        ["bob-copy", "bob"],
        ["carol-copy", "carol"],
      ]);
      // A shared prefix is the other owner's copy too: it stays readable there.
      expect((await (await store.get("bob-copy")).messages()).map((message) => message.id)).toEqual([
        "alice-chat-m1",
        "alice-chat-m3",
        "bob-1",
      ]);
      expect(await (await store.get(deeper.id)).messages()).toHaveLength(3);
      expect((await (await store.get("dave-chat")).messages()).map((message) => message.id)).toEqual([
        "dave-1",
      ]);

      // Run again with the forks included: only what still shares Alice's messages would go, and the parent
      // is gone, so a fresh owner's set is built to see includeSharedForks erase them.
      const again = await markedThread(store, "alice-2", "alice");
      await again.fork({ id: "bob-2", owner: "bob" });
      const report = await store.erase({ owner: "alice", includeSharedForks: true });
      expect(report.erased.map((entry) => entry.id).sort()).toEqual(["alice-2", "bob-2"]);
      expect(report.keptShared).toEqual([]);
      expect(await caught(store.get("bob-2"))).toBeInstanceOf(ThreadNotFoundError);
      expect((await store.list()).items.map((item) => item.id).sort()).toEqual([
        "bob-copy",
        "carol-copy",
        "dave-chat",
      ]);
    },
  );

  conformanceCase(context, "erase without an owner is refused; an unknown owner reports zero", async () => {
    const store = context.store;
    await markedThread(store, "a-1", "alice");
    const erase = store.erase as (options?: unknown) => Promise<unknown>;
    for (const options of [undefined, {}, { owner: "" }, { owner: 7 }, { owner: "a\u0000b" }]) {
      expect(await caught(erase.call(store, options))).toBeInstanceOf(InvalidOptionError);
    }
    const report = await store.erase({ owner: "nobody" });
    expect(report).toEqual({
      owner: "nobody",
      method: "deleted",
      threads: 0,
      messages: 0,
      bytes: 0,
      erased: [],
      keptShared: [],
      remote: [],
      ...(report.followUp === undefined ? {} : { followUp: report.followUp }),
    });
    expect(await (await store.get("a-1")).messages()).toHaveLength(2);
  });

  conformanceCase(context, "an erasure stopped halfway finishes when run again", async () => {
    const store = context.store;
    for (let index = 0; index < 6; index++) await markedThread(store, `a-${index}`, "alice");
    const parent = await store.get("a-0");
    await parent.fork({ id: "bob-fork", owner: "bob" });
    const controller = new AbortController();
    const stopped = await caught(
      store.erase({
        owner: "alice",
        includeSharedForks: true,
        signal: controller.signal,
        onProgress: (step) => {
          if (step.erased === 2) controller.abort();
        },
      }),
    );
    expect(stopped.name).toBe("AbortError");
    expect((await store.list()).items).toHaveLength(5);
    const rest = await store.erase({ owner: "alice", includeSharedForks: true });
    expect(rest.threads).toBe(5);
    expect((await store.list()).items).toEqual([]);
  });
}

import { SkeinError, UnsupportedOperationError } from "../../errors.js";
import type { ThreadStore, ThreadSummary } from "../../store/store.js";
import type { Thread } from "../../thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** Lets the clock move on, so threads changed one after another have different times. */
export function nextMillisecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 3));
}

/** The ids of one page. */
export async function listedIds(store: ThreadStore, options: Parameters<ThreadStore["list"]>[0]) {
  return (await store.list(options)).items.map((item) => item.id);
}

function ownerOf(thread: Thread): unknown {
  return (thread as Thread & { owner?: string }).owner;
}
function titleOf(thread: Thread): unknown {
  return (thread as Thread & { title?: string }).title;
}

/** Issue 37: a thread's owner and title, and `store.list` by owner, order and metadata. */
export function catalogueCases(context: SuiteContext): void {
  conformanceCase(context, "create, update and fork keep a thread's owner and title", async () => {
    const store = context.store;
    const thread = await store.create({ id: "trip", owner: "u-7", title: "Trip to Lyon" });
    expect([ownerOf(thread), titleOf(thread)]).toEqual(["u-7", "Trip to Lyon"]);
    const json = JSON.parse(JSON.stringify(thread));
    expect([json.owner, json.title]).toEqual(["u-7", "Trip to Lyon"]);
    expect(json.context).toEqual({});
    expect(thread.context).toEqual({});

    await thread.update({ title: "Lyon, 3 days" });
    const again = await store.get("trip");
    expect([ownerOf(again), titleOf(again)]).toEqual(["u-7", "Lyon, 3 days"]);
    // A change to context or metadata keeps them.
    await again.update({ context: { notes: { n: 1 } }, metadata: { agent: "planner" } });
    const read = await store.get("trip");
    expect([ownerOf(read), titleOf(read), read.context]).toEqual([
      "u-7",
      "Lyon, 3 days",
      { notes: { n: 1 } },
    ]);

    const fork = await read.fork({ id: "trip-b" });
    expect([ownerOf(fork), titleOf(fork)]).toEqual(["u-7", "Lyon, 3 days"]);
    const given = await read.fork({ id: "trip-c", owner: "u-8", title: "Their copy" });
    expect([ownerOf(given), titleOf(given)]).toEqual(["u-8", "Their copy"]);
    expect(await listedIds(store, { owner: "u-8" })).toEqual(["trip-c"]);

    await read.update({ owner: null, title: null });
    const cleared = await store.get("trip");
    expect([ownerOf(cleared), titleOf(cleared)]).toEqual([undefined, undefined]);
    expect(await listedIds(store, { owner: "u-7" })).toEqual(["trip-b"]);
    const plain = await store.create({ id: "plain" });
    expect([ownerOf(plain), titleOf(plain)]).toEqual([undefined, undefined]);
    expect(Object.keys(JSON.parse(JSON.stringify(plain)))).not.toContain("owner");
  });

  conformanceCase(
    context,
    "list gives one owner's threads newest first, with what a sidebar shows",
    async () => {
      const store = context.store;
      const first = await store.create({ id: "a-1", owner: "u-1", title: "First", metadata: { agent: "x" } });
      await nextMillisecond();
      await store.create({ id: "a-2", owner: "u-1", title: "Second" });
      await nextMillisecond();
      await store.create({ id: "b-1", owner: "u-2" });
      await store.create({ id: "none" });
      await nextMillisecond();
      await store.create({ id: "a-3", owner: "u-1" });
      await nextMillisecond();
      await first.append([
        { id: "m1", role: "user", text: "hi" },
        { id: "m2", role: "assistant", text: "hello" },
      ]);

      const page = await store.list({ owner: "u-1", order: "updated" });
      expect(page.items.map((item) => item.id)).toEqual(["a-1", "a-3", "a-2"]);
      expect(page.cursor).toBeUndefined();
      const item = page.items[0] as ThreadSummary;
      expect(item).toMatchObject({
        id: "a-1",
        type: store.nativeType,
        owner: "u-1",
        title: "First",
        metadata: { agent: "x" },
      });
      expect(item.messageCount).toBe(2);
      expect(Date.parse(item.updatedAt)).toBeGreaterThan(Date.parse(item.createdAt as string));
      expect(page.items[2]?.messageCount).toBe(0);

      expect(await listedIds(store, { owner: "u-1", order: "created" })).toEqual(["a-3", "a-2", "a-1"]);
      expect(await listedIds(store, { owner: "u-1", order: "created", direction: "asc" })).toEqual([
        "a-1",
        "a-2",
        "a-3",
      ]);
      expect(await listedIds(store, { owner: "u-1", order: "updated", direction: "asc" })).toEqual([
        "a-2",
        "a-3",
        "a-1",
      ]);
      expect(await listedIds(store, { owner: "u-1" })).toEqual(["a-1", "a-2", "a-3"]);
      expect(await listedIds(store, { owner: "u-1", direction: "desc" })).toEqual(["a-3", "a-2", "a-1"]);
      expect(await listedIds(store, { owner: "u-3" })).toEqual([]);
      expect(await listedIds(store, { order: "updated", limit: 2 })).toEqual(["a-1", "a-3"]);
      const everything = await store.list({});
      expect(everything.items.map((entry) => entry.id)).toEqual(["a-1", "a-2", "a-3", "b-1", "none"]);
      expect(everything.items[4]).not.toHaveProperty("owner");

      // Deleted and re-owned threads leave the owner's listing.
      await store.delete("a-2");
      await (await store.get("a-3")).update({ owner: "u-2" });
      expect(await listedIds(store, { owner: "u-1", order: "updated" })).toEqual(["a-1"]);
      expect(await listedIds(store, { owner: "u-2", order: "updated" })).toEqual(["a-3", "b-1"]);
    },
  );

  conformanceCase(
    context,
    "where keeps threads whose top-level metadata equals the values given",
    async () => {
      const store = context.store;
      await store.create({
        id: "p-1",
        owner: "u",
        metadata: { agent: "planner", archived: false, tags: { a: 1, b: 2 } },
      });
      await store.create({ id: "p-2", owner: "u", metadata: { agent: "planner", archived: true } });
      await store.create({ id: "p-3", owner: "v", metadata: { agent: "planner", archived: false } });
      await store.create({ id: "w-1", owner: "u", metadata: { agent: "writer" } });
      expect(await listedIds(store, { where: { agent: "planner" } })).toEqual(["p-1", "p-2", "p-3"]);
      expect(await listedIds(store, { owner: "u", where: { agent: "planner", archived: false } })).toEqual([
        "p-1",
      ]);
      // Equality of whole values, key order aside; a missing key is no match, even for false or null.
      expect(await listedIds(store, { where: { tags: { b: 2, a: 1 } } })).toEqual(["p-1"]);
      expect(await listedIds(store, { where: { tags: { a: 1 } } })).toEqual([]);
      expect(
        await listedIds(store, { where: { archived: false }, order: "created", direction: "asc" }),
      ).toEqual(["p-1", "p-3"]);
      expect(await listedIds(store, { where: { archived: null } })).toEqual([]);
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ where: { agent: "planner" }, order: "updated", limit: 1, cursor });
        walked.push(...page.items.map((item) => item.id));
        cursor = page.cursor;
      } while (cursor);
      expect(walked.sort()).toEqual(["p-1", "p-2", "p-3"]);
    },
  );

  conformanceCase(
    context,
    "count answers or says the store cannot count without reading every thread",
    async () => {
      const store = context.store;
      await store.create({ id: "c-1", owner: "u", metadata: { agent: "planner" } });
      await store.create({ id: "c-2", owner: "u" });
      await store.create({ id: "c-3" });
      for (const [options, expected] of [
        [{ owner: "u" }, 2],
        [{}, 3],
        [{ owner: "nobody" }, 0],
        [{ owner: "u", where: { agent: "planner" } }, 1],
      ] as const) {
        try {
          expect(await store.count(options)).toBe(expected);
        } catch (error) {
          expect(error).toBeInstanceOf(UnsupportedOperationError);
          expect((error as Error).message).toContain("count");
        }
      }
    },
  );

  conformanceCase(context, "a scope's owners are that scope's", async () => {
    const tenantA = context.store.scope("tenant-a");
    const tenantB = context.store.scope("tenant-b");
    await tenantA.create({ id: "t", owner: "u-7", title: "A's" });
    await tenantB.create({ id: "t", owner: "u-7", title: "B's" });
    await context.store.create({ id: "t", owner: "u-7", title: "unscoped" });
    for (const [store, title] of [
      [tenantA, "A's"],
      [tenantB, "B's"],
      [context.store, "unscoped"],
    ] as const) {
      for (const order of ["id", "updated", "created"] as const) {
        const page = await store.list({ owner: "u-7", order });
        expect(page.items.map((item) => [item.id, item.title])).toEqual([["t", title]]);
      }
    }
    expect((await tenantA.scope("inner").list({ owner: "u-7" })).items).toEqual([]);
  });

  conformanceCase(
    context,
    "a prefix inside a scope is of the ids the scope shows, in every order",
    async () => {
      const tenant = context.store.scope("tenant-p");
      await tenant.create({ id: "chat-1", owner: "u-7" });
      await nextMillisecond();
      await tenant.create({ id: "chat-2", owner: "u-7" });
      await tenant.create({ id: "other", owner: "u-7" });
      await context.store.create({ id: "chat-0", owner: "u-7" });
      for (const order of ["id", "updated", "created"] as const) {
        const expected = order === "id" ? ["chat-1", "chat-2"] : ["chat-2", "chat-1"];
        const direction = order === "id" ? "asc" : "desc";
        expect(await listedIds(tenant, { prefix: "chat", order, direction })).toEqual(expected);
        expect(await listedIds(tenant, { prefix: "chat", order, direction, owner: "u-7" })).toEqual(expected);
      }
      expect(await listedIds(context.store, { prefix: "chat" })).toEqual(["chat-0"]);
    },
  );

  conformanceCase(
    context,
    "export and import keep the owner and title; threads without them read as they are",
    async () => {
      const store = context.store;
      const thread = await store.create({ id: "src", owner: "u-1", title: "Exported" });
      await thread.append({ id: "m1", role: "user", text: "hi" });
      const exported = JSON.parse(JSON.stringify(await store.export("src")));
      expect([exported.owner, exported.title, exported.$v]).toEqual(["u-1", "Exported", 1]);
      expect(exported.context).toEqual({});
      const copy = await store.import(exported, { id: "copy" });
      expect([ownerOf(copy), titleOf(copy)]).toEqual(["u-1", "Exported"]);
      expect(await listedIds(store, { owner: "u-1" })).toEqual(["copy", "src"]);
      const { owner: _owner, title: _title, ...old } = exported;
      const oldCopy = await store.import(old, { id: "old" });
      expect([ownerOf(oldCopy), titleOf(oldCopy)]).toEqual([undefined, undefined]);
      const refused = await caught(store.import({ ...exported, owner: "x".repeat(257) }, { id: "bad" }));
      expect(SkeinError.isInstance(refused)).toBe(true);
      expect(await listedIds(store, {})).toEqual(["copy", "old", "src"]);
    },
  );
}

import {
  openStore,
  PointNotFoundError,
  SkeinError,
  type Thread,
  ThreadNotFoundError,
  type ThreadStore,
} from "@skein/thread-core";
import { afterAll, describe, expect, it } from "vitest";
import { fileStore, postgresStore, redisStore, type SharedStore } from "./support/backends.js";
import { usePostgres } from "./support/test-postgres.js";
import { useRedis } from "./support/test-redis.js";

const redis = useRedis();
const postgres = usePostgres();
const opened: ThreadStore[] = [];
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const backends = [
  ["memory", async () => ({ url: "memory:", cleanup: async () => {} })],
  ["fs", () => fileStore("scopes")],
  ["redis", async () => redisStore(redis.url(), "scopes")],
  ["postgres", async () => postgresStore(postgres.url(), "scopes")],
] as Array<[string, () => Promise<SharedStore>]>;

/** What the other tenant must never change: tenant a's thread as it reads. */
async function snapshot(thread: Thread) {
  await thread.refresh();
  return {
    messages: await thread.messages(),
    revision: thread.revision,
    metadata: thread.metadata,
    history: await thread.history(),
  };
}

async function rejects(call: () => Promise<unknown>): Promise<Error> {
  const error = await call().then(
    () => new Error("the call succeeded"),
    (thrown: unknown) => thrown as Error,
  );
  expect(SkeinError.isInstance(error), String(error)).toBe(true);
  return error;
}

/** Tenant a's thread "shared-id", with messages, a checkpoint, a rollback and a fork; tenant b's own thread. */
async function tenants(shared: SharedStore) {
  const root = await openStore(shared.url);
  opened.push(root);
  const a = root.scope("tenant-a");
  const b = root.scope("tenant-b");
  const secret = await a.create({ id: "shared-id", metadata: { owner: "a" } });
  await secret.append([
    { id: "a1", role: "user", text: "tenant a's secret" },
    { id: "a2", role: "assistant", text: "kept in a" },
  ]);
  const checkpoint = await secret.checkpoint("a's checkpoint");
  await secret.append({ id: "a3", role: "user", text: "later" });
  await secret.rollback(checkpoint);
  await secret.append({ id: "a4", role: "user", text: "after the rollback" });
  await secret.fork({ id: "a-fork" });
  const history = await secret.history();
  const rollback = history.find((event) => event.kind === "rollback");
  const own = await b.create({ id: "b-thread" });
  await own.append([
    { id: "a1", role: "user", text: "b's own message with a's id" },
    { id: "b2", role: "user", text: "b" },
  ]);
  return { root, a, b, secret, checkpoint, rollback, own };
}

describe.each(backends)("%s: tenant scopes", (_name, open) => {
  it("a thread of one scope cannot be read or listed from another, or from the unscoped store", async () => {
    const shared = await open();
    const { root, a, b, secret } = await tenants(shared);
    const before = await snapshot(secret);
    const reference = JSON.parse(JSON.stringify(secret));
    for (const store of [b, root, a.scope("nested")]) {
      expect(await rejects(() => store.get("shared-id"))).toBeInstanceOf(ThreadNotFoundError);
      expect(await rejects(() => store.export("shared-id"))).toBeInstanceOf(ThreadNotFoundError);
      expect(await rejects(() => store.get("a-fork"))).toBeInstanceOf(ThreadNotFoundError);
      // A's JSON is a reference (fs, redis) or its whole log (memory): a reference resolves to nothing here.
      if (reference.$type !== "memory") {
        expect(await rejects(() => store.open(reference))).toBeInstanceOf(ThreadNotFoundError);
      }
      const listed = [
        ...(await store.list()).items,
        ...(await store.list({ prefix: "shared" })).items,
        ...(await store.list({ prefix: "a-" })).items,
      ].map((item) => item.id);
      expect(listed).not.toContain("shared-id");
      expect(listed).not.toContain("a-fork");
    }
    expect((await b.list()).items.map((item) => item.id)).toEqual(["b-thread"]);
    expect((await root.list()).items).toEqual([]);
    expect(await b.delete("shared-id")).toBe(false);
    expect(await root.delete("shared-id")).toBe(false);
    expect(await a.scope("nested").delete("shared-id")).toBe(false);
    expect(await snapshot(secret)).toEqual(before);
    await shared.cleanup();
  });

  it("a checkpoint or point of one scope cannot fork, roll back or read a thread of another", async () => {
    const shared = await open();
    const { b, secret, checkpoint, rollback, own } = await tenants(shared);
    const before = await snapshot(secret);
    const points = [
      checkpoint,
      checkpoint.point,
      checkpoint.id,
      ...(rollback?.kind === "rollback" ? [rollback.from, rollback.to] : []),
    ];
    for (const point of points) {
      expect(await rejects(() => own.fork({ at: point, id: "b-fork" }))).toBeInstanceOf(PointNotFoundError);
      expect(await rejects(() => own.rollback(point))).toBeInstanceOf(PointNotFoundError);
      expect(await rejects(() => own.at(point))).toBeInstanceOf(PointNotFoundError);
    }
    // "a1" is also the id of one of b's own messages: forking there gives b's message, never a's.
    const fork = await own.fork({ at: "a1", id: "b-fork" });
    expect((await fork.messages()).map((message) => message.contents)).toEqual([
      [{ type: "text", text: "b's own message with a's id" }],
    ]);
    expect(await snapshot(secret)).toEqual(before);
    expect((await b.list()).items.map((item) => item.id)).toEqual(["b-fork", "b-thread"]);
    await shared.cleanup();
  });

  it("a thread of one scope cannot be overwritten from another by create, save or import with its id", async () => {
    const shared = await open();
    const { root, a, b, secret } = await tenants(shared);
    const before = await snapshot(secret);
    const exported = await a.export("shared-id");
    // Each of these makes a thread of b's (or the unscoped store's) own; none touches a's.
    const created = await b.create({ id: "shared-id", metadata: { owner: "b" } });
    await created.append({ id: "a1", role: "user", text: "b's a1" });
    const imported = await root.import(exported);
    await imported.append({ id: "a5", role: "user", text: "appended to the unscoped copy" });
    const importedIntoB = await b.import(exported, { id: "b-copy" });
    await importedIntoB.append({ id: "a5", role: "user", text: "appended to b's copy" });
    await importedIntoB.rollback("a1");
    const elsewhere = await openStore("memory:");
    opened.push(elsewhere);
    const memoryThread = await elsewhere.create({ id: "shared-id", metadata: { owner: "memory" } });
    await memoryThread.append({ id: "a1", role: "user", text: "saved over?" });
    const nested = a.scope("nested");
    await nested.save(memoryThread);
    await (await nested.import(exported, { id: "nested-copy" })).append({
      id: "n1",
      role: "user",
      text: "nested",
    });
    expect(await rejects(() => b.import(exported))).toMatchObject({ name: "ThreadExistsError" });

    expect(await snapshot(secret)).toEqual(before);
    expect(await snapshot(await a.get("shared-id"))).toEqual(before);
    expect((await a.list()).items.map((item) => item.id)).toEqual(["a-fork", "shared-id"]);
    expect((await b.get("shared-id")).metadata).toEqual({ owner: "b" });
    await shared.cleanup();
  });

  // Regression: errors raised inside a scope once carried the scope's internal key as `threadId` and in
  // their message; ScopedLogDriver now names threads by the ids the scope knows.
  it("errors raised in a scope name the thread by the id the scope knows", async () => {
    const shared = await open();
    const { b, own } = await tenants(shared);
    const exists = await rejects(() => b.create({ id: "b-thread" }));
    const moved = await rejects(() => own.append({ role: "user", text: "late" }, { ifRevision: 0 }));
    for (const error of [exists, moved]) {
      expect(error).toMatchObject({ threadId: "b-thread" });
      expect(error.message).not.toContain("\u001f");
    }
    await shared.cleanup();
  });

  // Regression: imported logs once could name a segment id spelling a scope's internal key (U+001F, the
  // tenant, U+001F, a segment id), so the unscoped store read the tenant's messages. Segment ids in
  // LogStateSchema now refuse control characters.
  it("the unscoped store cannot reach a scope's segments through an imported log that names them", async () => {
    const shared = await open();
    const { root, checkpoint } = await tenants(shared);
    const crafted = {
      $type: "memory",
      $v: 1,
      id: "reads-tenant-a",
      createdAt: new Date().toISOString(),
      revision: 0,
      end: { segment: `\u001ftenant-a\u001f${checkpoint.point.segment}`, offset: checkpoint.point.offset },
      segments: [],
      events: [],
    };
    const error = await root.import(crafted).then(
      async (thief) => new Error(`imported; it reads ${JSON.stringify(await thief.messages())}`),
      (thrown: unknown) => thrown as Error,
    );
    expect(SkeinError.isInstance(error), error.message).toBe(true);
    await shared.cleanup();
  });
});

import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fsStore } from "@skein/adapter-fs";
import {
  defineThreadType,
  messageText,
  openStore,
  StoreUnavailableError,
  type Thread,
  type ThreadRunner,
  ThreadStateSchema,
  type ThreadStore,
} from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { createThreadService, LeaseLostError, type ThreadService } from "../src/index.js";
import { LEASE_THREAD_TYPE, type LeaseState, leaseIdOf } from "../src/lease-document.js";
import { ThreadLeases } from "../src/thread-lease.js";
import { heldRunner, lastUserText } from "./fake-runners.js";

const redis = inject("redis");

/** A local thread type of the application's own: its history is kept by the store, as a native thread's is. */
const ticketType = defineThreadType({ type: "acme.ticket", schema: ThreadStateSchema, local: true });

/** Directories of this file's fs stores, removed after each test. */
const directories: string[] = [];

/** The stores the fence's tests run on: memory, fs, and the Redis the test setup started (one prefix a test). */
const fencedStores: Array<[string, () => Promise<ThreadStore>]> = [
  ["memory", () => openStore("memory:")],
  [
    "fs",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "skein-lease-"));
      directories.push(directory);
      return fsStore({ directory });
    },
  ],
  [
    "redis",
    () => {
      if ("unavailable" in redis) throw new Error(redis.unavailable);
      const separator = redis.url.includes("?") ? "&" : "?";
      return openStore(`${redis.url}${separator}prefix=lease-${randomBytes(4).toString("hex")}`);
    },
  ],
];

let store: ThreadStore;
const services: ThreadService[] = [];

afterEach(async () => {
  for (const service of services.splice(0)) await service.close({ abort: true });
  await store.close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

function start(runner: ThreadRunner, options: { leaseMs?: number; instanceId?: string } = {}): ThreadService {
  const service = createThreadService({ store, runner, concurrency: 8, pollMs: 2, ...options });
  services.push(service);
  return service;
}

async function writeLease(threadId: string, holder: string, ifRevision: number): Promise<void> {
  const state: LeaseState = {
    $type: LEASE_THREAD_TYPE,
    $v: 1,
    id: leaseIdOf(threadId),
    threadId,
    holder,
    revision: ifRevision + 1,
    leaseMs: 150,
    renewedAt: new Date().toISOString(),
    // Only status() reads it (takeovers time leaseMs on their own clock): far ahead, so a slow machine
    // cannot see it expire before the test asks.
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  };
  await store.save(state, { ifRevision });
}

/** The thread's lease written free by someone else, so the next taker reads it first. */
async function writeFreeLease(threadId: string): Promise<void> {
  const current = await store.getState<LeaseState>(leaseIdOf(threadId));
  await store.save(
    { ...current, holder: null, revision: current.revision + 1 },
    {
      ifRevision: current.revision,
    },
  );
}

/** A runner that answers with its name and every message's text it reads in the thread. */
function answering(name: string): ThreadRunner {
  return {
    specificationVersion: "v1",
    supports: () => true,
    async run(thread) {
      const texts = (await thread.messages()).map(messageText);
      return thread.append({ role: "assistant", text: `${name}: ${texts.join(",")}` });
    },
  };
}

/**
 * `store` as the taking instance uses it, letting `between` (the stale run's write) land first at one moment:
 * "first append", right before the taker's first append (its input) reaches the store, after it has read the
 * thread; "takeover", right after the taker's first read of the thread once it holds the lease (the read its
 * takeover commit is made from), before that commit.
 */
function lateWriteBefore(
  store: ThreadStore,
  moment: "first append" | "takeover",
  between: () => Promise<unknown>,
): ThreadStore {
  let done = false;
  const once = async () => {
    if (done) return;
    done = true;
    await between();
  };
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (id: string) => {
        const thread: Thread = await value.call(target, id);
        if (moment === "takeover") {
          const lease = await target.getState<LeaseState>(leaseIdOf(id)).catch(() => undefined);
          if (lease?.holder === "taker") await once();
          return thread;
        }
        const append = thread.append.bind(thread);
        thread.append = (async (...args: Parameters<typeof append>) => {
          await once();
          return append(...args);
        }) as typeof append;
        return thread;
      };
    },
  });
}

/** `store`, whose threads' `update` fails (the store unreachable) while `failing()` says so. */
function failingUpdates(store: ThreadStore, failing: () => boolean): ThreadStore {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (id: string) => {
        const thread: Thread = await value.call(target, id);
        const update = thread.update.bind(thread);
        thread.update = ((...args: Parameters<typeof update>) =>
          failing()
            ? Promise.reject(new StoreUnavailableError("[test] the store is away", { source: "test" }))
            : update(...args)) as typeof update;
        return thread;
      };
    },
  });
}

/**
 * A run of this instance past its lease check, whose lease the store shows as that of an instance that
 * stopped renewing it (leaseMs 150): as if this instance were frozen, while its own clock says it holds it.
 */
async function runStoppingRenewals(type?: string) {
  const runner = heldRunner();
  // Valid by its own clock for the whole test, renewed never: only the store's view of it (the ghost's
  // lease) lapses. With the default 15 s, a renewal due during a slow test fails against the ghost's lease,
  // the run loses its lease by itself, and its lease check, not the store, refuses the stale writes.
  const service = start(runner, { leaseMs: 600_000 });
  const { threadId } = await service.createThread(type === undefined ? {} : { type });
  // Settled as an outcome: the send may fail while the test awaits something else.
  const sending = service.send(threadId, "work").then(
    () => undefined,
    (error: unknown) => error,
  );
  const call = await runner.nextCall();
  const current = await store.getState<LeaseState>(leaseIdOf(threadId));
  await writeLease(threadId, "ghost", current.revision);
  return { call, sending, threadId };
}

/**
 * The taker's lease. A takeover waits this long too (the longer of its own and the lease's `leaseMs`); and
 * the taker must hold the lease through its own turn: with 150 ms, renewals that a loaded machine delayed
 * (a fresh clone's CI at load ~15) let it lapse, and the taker's turn failed with `LeaseLostError`.
 */
const TAKER_LEASE_MS = 2_000;

/** Another instance ("taker"), which takes the lease over once it has gone unrenewed for TAKER_LEASE_MS. */
function startTaker(takerStore: ThreadStore): ThreadService {
  const taker = createThreadService({
    store: takerStore,
    runner: answering("taker"),
    concurrency: 8,
    pollMs: 2,
    leaseMs: TAKER_LEASE_MS,
    instanceId: "taker",
  });
  services.push(taker);
  return taker;
}

describe("leases between service instances on one store", () => {
  beforeEach(async () => {
    store = await openStore("memory:");
  });

  it("never let two instances process one thread at once, and process every message once", async () => {
    const active = new Map<string, number>();
    let overlaps = 0;
    const runner = (name: string): ThreadRunner => ({
      specificationVersion: "v1",
      supports: () => true,
      async run(thread) {
        active.set(thread.id, (active.get(thread.id) ?? 0) + 1);
        if ((active.get(thread.id) ?? 0) > 1) overlaps++;
        const text = await lastUserText(thread);
        await sleep(1 + (text.length % 3));
        active.set(thread.id, (active.get(thread.id) ?? 1) - 1);
        return thread.append({ role: "assistant", text: `${name}: ${text}` });
      },
    });
    const first = start(runner("a"));
    const second = start(runner("b"));
    const threads = [];
    for (let index = 0; index < 4; index++) threads.push((await first.createThread()).threadId);
    const sends = threads.flatMap((threadId) =>
      Array.from({ length: 8 }, (_, index) => [
        first.send(threadId, `a${index}`),
        second.send(threadId, `b${index}`),
      ]).flat(),
    );
    await Promise.all(sends);
    expect(overlaps).toBe(0);
    for (const threadId of threads) {
      const texts = (await (await store.get(threadId)).messages()).map(messageText);
      expect(texts).toHaveLength(32);
      for (let at = 0; at < texts.length; at += 2) {
        const input = texts[at] as string;
        expect(texts[at + 1]).toBe(`${input[0]}: ${input}`);
      }
      expect(new Set(texts.filter((_, at) => at % 2 === 0)).size).toBe(16);
      // Each instance still processes its own messages in the order it was given them.
      for (const name of ["a", "b"]) {
        const own = texts.filter((text, at) => at % 2 === 0 && text.startsWith(name));
        expect(own).toEqual(Array.from({ length: 8 }, (_, index) => `${name}${index}`));
      }
    }
  });

  it("take over a thread whose holder crashed, once its lease has gone unrenewed for leaseMs", async () => {
    const service = start(
      {
        specificationVersion: "v1",
        supports: () => true,
        run: (thread) => thread.append({ role: "assistant", text: "taken over" }),
      },
      { leaseMs: 150 },
    );
    const { threadId } = await service.createThread();
    await writeLease(threadId, "crashed-instance", 0);
    expect(await service.status(threadId)).toBe("running");
    const started = performance.now();
    const result = await service.send(threadId, "hello?");
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(messageText(result.messages[0] as never)).toBe("taken over");
    await service.whenIdle();
    const lease = await store.getState<LeaseState>(leaseIdOf(threadId));
    expect(lease).toMatchObject({ holder: null, threadId });
    // Taken at 2 and freed at 3, or later if a slow run renewed it in between.
    expect(lease.revision).toBeGreaterThanOrEqual(3);
  });

  it("abort a run whose lease another instance took, and refuse its later writes", async () => {
    const runner = heldRunner();
    const service = start(runner, { leaseMs: 90 });
    const { threadId } = await service.createThread();
    const sending = service.send(threadId, "work");
    const call = await runner.nextCall();
    const current = await store.getState<LeaseState>(leaseIdOf(threadId));
    await writeLease(threadId, "usurper", current.revision);
    await expect(sending).rejects.toBeInstanceOf(LeaseLostError);
    expect(call.signal?.reason).toBeInstanceOf(LeaseLostError);
    await call.finished;
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["work"]);
    // The usurper holds it now, as far as anyone can tell.
    expect(await service.status(threadId)).toBe("running");
    expect((await service.info(threadId)).lastFailure).toBeUndefined();
  });

  it("report a write the store refused in its own words, once another instance took the lease, as LeaseLostError", async () => {
    // The fs store refuses a stopped writer whose lock was taken over with its own LockLostError: to the
    // run, that means another instance holds the thread. Any store error does, once the lease is gone.
    let refusal: Error | undefined;
    const refusing = new Proxy(store, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
        return async (id: string) => {
          const thread = await value.call(target, id);
          const append = thread.append.bind(thread);
          thread.append = ((...args: Parameters<typeof append>) =>
            refusal ? Promise.reject(refusal) : append(...args)) as typeof append;
          return thread;
        };
      },
    });
    const runner = heldRunner();
    const service = createThreadService({ store: refusing, runner, concurrency: 8, pollMs: 2 });
    services.push(service);
    const { threadId } = await service.createThread();
    const sending = service.send(threadId, "work");
    const call = await runner.nextCall();
    refusal = new StoreUnavailableError("[test] refused by the store", { source: "test" });
    // While the lease is this instance's, the store's error is the run's, as it is.
    await expect(call.thread.append({ role: "assistant", text: "early" })).rejects.toBe(refusal);
    const current = await store.getState<LeaseState>(leaseIdOf(threadId));
    await writeLease(threadId, "usurper", current.revision);
    const late = await call.thread
      .append({ role: "assistant", text: "late" })
      .catch((error: unknown) => error);
    expect(LeaseLostError.isInstance(late)).toBe(true);
    // Its cause is the store's error (a copy with any secret scrubbed, as every failure's cause is).
    expect(StoreUnavailableError.isInstance((late as Error).cause)).toBe(true);
    expect(((late as Error).cause as Error).message).toBe(refusal.message);
    await expect(sending).rejects.toSatisfy((error) => LeaseLostError.isInstance(error));
    await call.finished;
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["work"]);
  });

  it("keep a lease renewed through a run longer than leaseMs", async () => {
    const runner = heldRunner();
    // Renewed every third of leaseMs: long enough that a loaded machine's timer delays cannot lapse it.
    const service = start(runner, { leaseMs: 2000 });
    const other = start(runner, { leaseMs: 2000 });
    const { threadId } = await service.createThread();
    const first = service.send(threadId, "long");
    const call = await runner.nextCall();
    const second = other.send(threadId, "next");
    await sleep(5000);
    expect(runner.calls).toHaveLength(1);
    call.release();
    await first;
    (await runner.nextCall()).release();
    await second;
    await other.whenIdle();
    expect(await store.getState(leaseIdOf(threadId))).toMatchObject({ holder: null });
  });

  it("are plain state documents of their own type, read with getState, not threads", async () => {
    const service = start(heldRunner());
    const { threadId } = await service.createThread();
    await writeLease(threadId, "someone", 0);
    expect(await store.getState(leaseIdOf(threadId))).toMatchObject({
      $type: LEASE_THREAD_TYPE,
      threadId,
      holder: "someone",
      revision: 1,
    });
    await expect(store.get(leaseIdOf(threadId))).rejects.toMatchObject({
      name: "UnsupportedOperationError",
      message: expect.stringContaining("store.getState"),
    });
    expect(leaseIdOf("x".repeat(256)).length).toBeLessThan(80);
    expect(leaseIdOf("a")).not.toBe(leaseIdOf("b"));
  });
});

describe.each(fencedStores)("the lease fence of a run (%s store)", (_name, open) => {
  beforeEach(async () => {
    store = await open();
  });

  it("refuse, in the store's own commit, a run's write made after another instance took the lease", async () => {
    // The run passed its lease check (its clock says the lease is valid) when another instance takes the
    // lease and answers: the write must be refused by the store, not land after the other's turn.
    const runner = heldRunner();
    const service = start(runner);
    const { threadId } = await service.createThread();
    const sending = service.send(threadId, "work");
    const call = await runner.nextCall();
    const current = await store.getState<LeaseState>(leaseIdOf(threadId));
    await writeLease(threadId, "usurper", current.revision);
    await (await store.get(threadId)).append({ role: "user", text: "the usurper's turn" });
    const before = (await store.get(threadId)).revision;
    const late = call.thread.append({ role: "assistant", text: "late" });
    await expect(late).rejects.toBeInstanceOf(LeaseLostError);
    await expect(sending).rejects.toBeInstanceOf(LeaseLostError);
    // It stops: the update of its context or failure summary that would follow is not tried either.
    await expect(call.thread.update({ context: { late: true } })).rejects.toBeInstanceOf(LeaseLostError);
    await call.finished;
    const thread = await store.get(threadId);
    expect((await thread.messages()).map(messageText)).toEqual(["work", "the usurper's turn"]);
    expect(thread.revision).toBe(before);
  });

  it("refuse a stale run's write that reaches the store after another instance took its lease over, before that instance's first write", async () => {
    // The store checks the thread's revision: the instance that takes the lease over moves it on before its
    // turn (fenceOffFormerHolder), so the stale run's write is refused even before the new turn's input.
    const { call, sending, threadId } = await runStoppingRenewals();
    let late: Promise<unknown> | undefined;
    const taker = startTaker(
      lateWriteBefore(store, "first append", () => {
        late = call.thread.append({ role: "assistant", text: "late" }).catch((error: unknown) => error);
        return late;
      }),
    );
    const answered = await taker.send(threadId, "the taker's turn");
    expect(LeaseLostError.isInstance(await late)).toBe(true);
    expect(messageText(answered.messages[0] as never)).toBe("taker: work,the taker's turn");
    expect(LeaseLostError.isInstance(await sending)).toBe(true);
    await call.finished;
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual([
      "work",
      "the taker's turn",
      "taker: work,the taker's turn",
    ]);
  });

  it("refuse a stale run's write to a local thread of the application's own type, before the taker's first write", async () => {
    // A local type of its own (defineThreadType local: true) keeps its revisions in the store, as the
    // store's own type does: the takeover moves its revision on too.
    store.registry.ensure(ticketType);
    const { call, sending, threadId } = await runStoppingRenewals("acme.ticket");
    expect((await store.get(threadId)).type).toBe("acme.ticket");
    let late: Promise<unknown> | undefined;
    const taker = startTaker(
      lateWriteBefore(store, "first append", () => {
        late = call.thread.append({ role: "assistant", text: "late" }).catch((error: unknown) => error);
        return late;
      }),
    );
    const answered = await taker.send(threadId, "the taker's turn");
    expect(LeaseLostError.isInstance(await late)).toBe(true);
    expect(messageText(answered.messages[0] as never)).toBe("taker: work,the taker's turn");
    expect(LeaseLostError.isInstance(await sending)).toBe(true);
    await call.finished;
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual([
      "work",
      "the taker's turn",
      "taker: work,the taker's turn",
    ]);
  });

  it("let a stale run's write that lands before the takeover's commit come ahead of the new turn, which reads it; refuse the next", async () => {
    // The write lands between the taker's read of the thread and its commit moving the revision on: that
    // commit is refused, read again and made after it. The taker's turn then starts after the stale part.
    const { call, sending, threadId } = await runStoppingRenewals();
    let late: Promise<unknown> | undefined;
    const taker = startTaker(
      lateWriteBefore(store, "takeover", () => {
        late = call.thread.append({ role: "assistant", text: "late" });
        return late;
      }),
    );
    const answered = await taker.send(threadId, "the taker's turn");
    expect(late).toBeDefined();
    await late;
    expect(messageText(answered.messages[0] as never)).toBe("taker: work,late,the taker's turn");
    const before = (await store.get(threadId)).revision;
    await expect(call.thread.append({ role: "assistant", text: "later" })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(LeaseLostError.isInstance(await sending)).toBe(true);
    await call.finished;
    const thread = await store.get(threadId);
    expect((await thread.messages()).map(messageText)).toEqual([
      "work",
      "late",
      "the taker's turn",
      "taker: work,late,the taker's turn",
    ]);
    expect(thread.revision).toBe(before);
  });

  it("refuse a stale run's write after the takeover's commit failed and the same instance took the lease again", async () => {
    const { call, sending, threadId } = await runStoppingRenewals();
    let failing = true;
    let late: Promise<unknown> | undefined;
    const taker = startTaker(
      lateWriteBefore(
        failingUpdates(store, () => failing),
        "first append",
        () => {
          late = call.thread.append({ role: "assistant", text: "late" }).catch((error: unknown) => error);
          return late;
        },
      ),
    );
    const first = await taker.send(threadId, "one").catch((error: unknown) => error);
    expect(StoreUnavailableError.isInstance(first)).toBe(true);
    failing = false;
    const answered = await taker.send(threadId, "two");
    expect(LeaseLostError.isInstance(await late)).toBe(true);
    expect(messageText(answered.messages[0] as never)).toBe("taker: work,two");
    expect(LeaseLostError.isInstance(await sending)).toBe(true);
    await call.finished;
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual([
      "work",
      "two",
      "taker: work,two",
    ]);
  });

  it("leave the thread's content as it was when an instance takes a lease over: only its revision moves", async () => {
    const { call, sending, threadId } = await runStoppingRenewals();
    const before = (await store.get(threadId)).toJSON();
    const leases = new ThreadLeases(store, "taker", 150);
    let held = await leases.tryAcquire(threadId);
    for (let waited = 0; !held && waited < 200; waited++) {
      await sleep(10);
      held = await leases.tryAcquire(threadId);
    }
    expect(held).toBeDefined();
    const after = (await store.get(threadId)).toJSON();
    expect(after.revision).toBe((before.revision as number) + 1);
    const { revision: _after, updatedAt: _updated, ...kept } = after as Record<string, unknown>;
    const { revision: _before, updatedAt: _was, ...was } = before as Record<string, unknown>;
    expect(kept).toEqual(was);
    expect((await (await store.get(threadId)).messages()).map(messageText)).toEqual(["work"]);
    await held?.release();
    await expect(call.thread.append({ role: "assistant", text: "late" })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(LeaseLostError.isInstance(await sending)).toBe(true);
    await call.finished;
  });

  it("move nothing when a lease is taken free: the thread's revision counts the run's own writes only", async () => {
    const service = start(answering("a"));
    const { threadId } = await service.createThread();
    const created = (await store.get(threadId)).revision as number;
    await service.send(threadId, "first");
    await service.whenIdle();
    // Freed by this instance and taken again without a read, then taken after a read of a lease freed elsewhere.
    await service.send(threadId, "second");
    await service.whenIdle();
    await writeFreeLease(threadId);
    await service.send(threadId, "third");
    expect((await store.get(threadId)).revision).toBe(created + 6);
  });

  it("let a run write on after a change made outside the lease (attach, pause), and honour its own ifRevision", async () => {
    const runner = heldRunner();
    const service = start(runner);
    const { threadId } = await service.createThread();
    const sending = service.send(threadId, "work");
    const call = await runner.nextCall();
    await service.attach(threadId, { fileId: "file-1" });
    await service.pause(threadId);
    await expect(
      call.thread.append({ role: "assistant", text: "stale" }, { ifRevision: 1 }),
    ).rejects.toMatchObject({
      name: "ConcurrencyError",
    });
    await call.thread.refresh();
    await call.thread.update(
      { metadata: { ...call.thread.metadata, note: "kept" } },
      { ifRevision: call.thread.revision as number },
    );
    call.release("answer");
    expect(messageText((await sending).messages[0] as never)).toBe("answer");
    const thread = await store.get(threadId);
    expect((await thread.messages()).map(messageText)).toEqual(["work", "answer"]);
    expect(thread.metadata.note).toBe("kept");
    expect(await service.status(threadId)).toBe("paused");
  });
});

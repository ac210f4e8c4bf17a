import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fsStore } from "@skein/adapter-fs";
import {
  type Checkpoint,
  messageText,
  openStore,
  type Thread,
  ThreadNotFoundError,
  type ThreadStore,
} from "@skein/thread-core";
import type { LogDriver } from "@skein/thread-core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LeaseLostError } from "../src/errors.js";
import { fenceOffFormerHolder } from "../src/fence-off-former-holder.js";
import { LEASE_THREAD_TYPE, type LeaseState, leaseDocumentType, leaseIdOf } from "../src/lease-document.js";
import { ThreadLeases } from "../src/thread-lease.js";
import { createThreadService, type ThreadService } from "../src/thread-service.js";
import { heldRunner } from "./fake-runners.js";

let store: ThreadStore;
const services: ThreadService[] = [];
/** Directories of this file's fs stores, removed after each test. */
const directories: string[] = [];

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  for (const service of services.splice(0)) await service.close({ abort: true });
  await store.close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

/**
 * The stores a run's checkpoint, fork and delete are fenced on: memory, and fs, whose delete checks the
 * revision as it deletes too (`fencedDelete`).
 */
const historyStores: Array<[string, () => Promise<ThreadStore>]> = [
  ["memory", () => openStore("memory:")],
  [
    "fs",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "skein-fenced-history-"));
      directories.push(directory);
      return fsStore({ directory });
    },
  ],
];

/** Another instance's lease, written over the run's own at `ifRevision`: the takeover a frozen run misses. */
async function takeLease(threadId: string, ifRevision: number): Promise<void> {
  const state: LeaseState = {
    $type: LEASE_THREAD_TYPE,
    $v: 1,
    id: leaseIdOf(threadId),
    threadId,
    holder: "usurper",
    revision: ifRevision + 1,
    leaseMs: 150,
    renewedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 150).toISOString(),
  };
  await store.save(state, { ifRevision });
}

const OPERATIONS: Record<string, (thread: Thread) => Promise<unknown>> = {
  checkpoint: (thread) => thread.checkpoint("late"),
  fork: (thread) => thread.fork({ id: "late-fork" }),
  delete: (thread) => thread.delete(),
};

describe.each(historyStores)("a leased run's checkpoint, fork and delete (%s store)", (_name, open) => {
  beforeEach(async () => {
    await store.close();
    store = await open();
  });

  // The run passed its lease check (its clock says the lease is valid) when another instance takes the lease
  // and writes: each operation, as the run's first write after that, must be refused by the store's own check.
  for (const [name, operation] of Object.entries(OPERATIONS)) {
    it(`refuse a run's ${name} made after another instance took the lease and wrote; nothing changes`, async () => {
      const runner = heldRunner();
      const service = createThreadService({ store, runner, concurrency: 8, pollMs: 2 });
      services.push(service);
      const { threadId } = await service.createThread();
      const sending = service.send(threadId, "work");
      const call = await runner.nextCall();
      const lease = await store.getState<LeaseState>(leaseIdOf(threadId));
      await takeLease(threadId, lease.revision);
      await (await store.get(threadId)).append({ role: "user", text: "the usurper's turn" });
      const before = await store.get(threadId);
      const history = await before.history();
      const refused = await operation(call.thread).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(LeaseLostError.isInstance(refused)).toBe(true);
      await expect(sending).rejects.toSatisfy((error) => LeaseLostError.isInstance(error));
      await call.finished;
      const thread = await store.get(threadId);
      expect((await thread.messages()).map(messageText)).toEqual(["work", "the usurper's turn"]);
      expect(thread.revision).toBe(before.revision);
      expect(await thread.history()).toEqual(history);
      await expect(store.get("late-fork")).rejects.toSatisfy((error) => error instanceof Error);
      expect((await store.list()).items.map((item) => item.id)).not.toContain("late-fork");
    });
  }
});

/**
 * `store`, as a takeover's commit sees it: right after its first read of `threadId`, the workflow is deleted
 * (by another writer, or by the stale holder's own delete landing just then). `refusing` turns the store's
 * refusal of the workflow's commit into an error of the store's own words, as memory's was a TypeError.
 */
function deletedAfterFirstRead(store: ThreadStore, threadId: string, refusing = false): ThreadStore {
  let deleted = false;
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (id: string) => {
        const thread: Thread = await value.call(target, id);
        if (id !== threadId || deleted) return thread;
        deleted = true;
        await (await target.get(threadId)).delete();
        if (refusing) {
          thread.update = () => Promise.reject(new TypeError("the store's own words for a deleted thread"));
        }
        return thread;
      };
    },
  });
}

describe.each(historyStores)(
  "a takeover of a workflow deleted while it is fenced (%s store)",
  (_name, open) => {
    beforeEach(async () => {
      await store.close();
      store = await open();
    });

    for (const threads of [["main", "planner"], []]) {
      it(`end quietly and leave it deleted (sub-threads: ${threads.length})`, async () => {
        const workflow = await store.create("workflow", { threads });
        await fenceOffFormerHolder(deletedAfterFirstRead(store, workflow.id), workflow.id);
        const after = await store.get(workflow.id).catch((error: unknown) => error);
        expect(ThreadNotFoundError.isInstance(after)).toBe(true);
      });
    }

    it("end quietly when the store refuses the deleted workflow's commit in its own words", async () => {
      const workflow = await store.create("workflow", { threads: ["main"] });
      await fenceOffFormerHolder(deletedAfterFirstRead(store, workflow.id, true), workflow.id);
      expect(
        ThreadNotFoundError.isInstance(await store.get(workflow.id).catch((error: unknown) => error)),
      ).toBe(true);
    });

    it("fail when the store refuses the commit of a workflow that is still there", async () => {
      const workflow = await store.create("workflow", { threads: ["main"] });
      const refusing = new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
          return async (id: string) => {
            const thread: Thread = await value.call(target, id);
            if (id === workflow.id) thread.update = () => Promise.reject(new TypeError("refused"));
            return thread;
          };
        },
      });
      await expect(fenceOffFormerHolder(refusing, workflow.id)).rejects.toThrow("refused");
    });
  },
);

describe.each(historyStores)("a takeover of a workflow's lease (%s store)", (_name, open) => {
  beforeEach(async () => {
    await store.close();
    store = await open();
  });

  it("move only the revisions of the workflow and its local sub-threads; their content stays as it was", async () => {
    store.registry.ensure(leaseDocumentType);
    const workflow = (await store.create("workflow", { threads: ["main", "planner"] })) as Workflow;
    await workflow.thread("planner").append({ role: "assistant", text: "plan" });
    await workflow.update({ metadata: { ...workflow.metadata, topic: "t" }, context: { step: 1 } });
    await takeLease(workflow.id, 0);
    /** Everything a takeover must leave as it is, and the revisions it moves. */
    const content = async () => {
      const current = (await store.get(workflow.id)) as Workflow;
      const {
        revision,
        updatedAt: _updatedAt,
        threads: _threads,
        ...state
      } = current.toJSON() as Record<string, unknown>;
      const subs: Record<string, unknown> = {};
      const revisions: Record<string, unknown> = { workflow: revision };
      for (const key of current.keys()) {
        const sub = current.thread(key);
        revisions[key] = sub.revision;
        subs[key] = { metadata: sub.metadata, context: sub.context, messages: await sub.messages() };
      }
      return { state, subs, revisions, history: await current.history() };
    };
    const before = await content();
    const leases = new ThreadLeases(store, "taker", 150);
    let held = await leases.tryAcquire(workflow.id);
    for (let waited = 0; !held && waited < 500; waited++) {
      await sleep(10);
      held = await leases.tryAcquire(workflow.id);
    }
    expect(held).toBeDefined();
    const after = await content();
    await held?.release();
    const moved = (revisions: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(revisions).map(([key, value]) => [key, (value as number) + 1]));
    expect(after.revisions).toEqual(moved(before.revisions));
    expect({ ...after, revisions: undefined }).toEqual({ ...before, revisions: undefined });
  });
});

describe("a leased run whose refused write finds the thread deleted", () => {
  it("ends with LeaseLostError, not ThreadNotFoundError", async () => {
    const runner = heldRunner();
    const service = createThreadService({ store, runner, concurrency: 8, pollMs: 2 });
    services.push(service);
    const { threadId } = await service.createThread();
    const sending = service.send(threadId, "work");
    const call = await runner.nextCall();
    const lease = await store.getState<LeaseState>(leaseIdOf(threadId));
    await takeLease(threadId, lease.revision);
    // The new holder writes just before the run's checkpoint reaches the store, and deletes the thread
    // right after the store refused it: the run reads the thread again and finds it gone.
    const driver = (store as unknown as { driver: LogDriver }).driver;
    const commit = driver.commit;
    let usurped = false;
    driver.commit = async function (this: LogDriver, ...args: Parameters<LogDriver["commit"]>) {
      if (usurped || args[0] !== threadId) return commit.apply(this, args);
      usurped = true;
      await (await store.get(threadId)).append({ role: "user", text: "the usurper's turn" });
      try {
        return await commit.apply(this, args);
      } catch (error) {
        await store.delete(threadId);
        throw error;
      }
    };
    const refused = await call.thread.checkpoint("late").then(
      () => undefined,
      (error: unknown) => error,
    );
    driver.commit = commit;
    expect(usurped).toBe(true);
    expect(LeaseLostError.isInstance(refused)).toBe(true);
    await expect(sending).rejects.toSatisfy((error) => LeaseLostError.isInstance(error));
    await call.finished;
  });
});

type Workflow = Thread & { thread(key?: string): Thread; keys(): string[] };

/** Each sub-thread's messages and revision, and the workflow's revision and history. */
async function workflowSnapshot(threadId: string) {
  const workflow = (await store.get(threadId)) as Workflow;
  const threads: Record<string, unknown> = {};
  for (const key of workflow.keys()) {
    const sub = workflow.thread(key);
    threads[key] = { revision: sub.revision, messages: (await sub.messages()).map(messageText) };
  }
  return { revision: workflow.revision, history: await workflow.history(), threads };
}

/**
 * A leased run on a workflow (sub-threads `main` and `planner`, a checkpoint `planned`) that has passed its
 * lease check when another instance takes the lease over; the run's thread is the fence it writes through.
 */
async function workflowRun() {
  const runner = heldRunner();
  const service = createThreadService({ store, runner, concurrency: 8, pollMs: 2 });
  services.push(service);
  const { threadId } = await service.createThread({
    type: "workflow",
    typeOptions: { threads: ["main", "planner"] },
  });
  const workflow = (await store.get(threadId)) as Workflow;
  await workflow.thread("planner").append({ role: "user", text: "plan" });
  const checkpoint = (await workflow.checkpoint("planned")) as Checkpoint;
  const sending = service.send(threadId, "work");
  const call = await runner.nextCall();
  const lease = await store.getState<LeaseState>(leaseIdOf(threadId));
  await takeLease(threadId, lease.revision);
  /** The new holder's write to one sub-thread: it never moves the workflow's own revision. */
  const usurp = async (key: string) =>
    ((await store.get(threadId)) as Workflow).thread(key).append({ role: "user", text: `usurper ${key}` });
  const ended = async () => {
    await expect(sending).rejects.toSatisfy((error) => LeaseLostError.isInstance(error));
    await call.finished;
  };
  return { threadId, checkpoint, thread: call.thread, usurp, ended };
}

/** Runs `between` once, right before (or after) the store's first delete of any record. */
function aroundFirstDelete(between: () => Promise<unknown>, when: "before" | "after"): void {
  const driver = (store as unknown as { driver: LogDriver }).driver;
  const remove = driver.delete;
  let done = false;
  driver.delete = async function (this: LogDriver, ...args: Parameters<LogDriver["delete"]>) {
    const first = !done;
    done = true;
    if (first && when === "before") await between();
    const result = await remove.apply(this, args);
    if (first && when === "after") await between();
    return result;
  };
}

const refusedWith = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const WORKFLOW_OPERATIONS: Record<string, (thread: Thread, checkpoint: Checkpoint) => Promise<unknown>> = {
  ...OPERATIONS,
  rollback: (thread, checkpoint) => thread.rollback(checkpoint),
};

describe("a leased run's checkpoint, fork, delete and rollback of a workflow", () => {
  for (const [name, operation] of Object.entries(WORKFLOW_OPERATIONS)) {
    it(`refuse a run's ${name} made after another instance took the lease and wrote to a sub-thread only; nothing changes`, async () => {
      const { threadId, checkpoint, thread, usurp, ended } = await workflowRun();
      await usurp("main");
      const before = await workflowSnapshot(threadId);
      expect(LeaseLostError.isInstance(await refusedWith(operation(thread, checkpoint)))).toBe(true);
      await ended();
      expect(await workflowSnapshot(threadId)).toEqual(before);
      expect((await store.list()).items.map((item) => item.id)).not.toContain("late-fork");
    });
  }

  it("refuse a run's update of the workflow, and its write to a sub-thread the new holder never wrote, once another instance took the lease over", async () => {
    // The new holder's messages go to main, which moves neither the workflow's own revision nor planner's:
    // what refuses these is the commit the taking instance makes on each of them before its turn.
    const { threadId, thread, usurp, ended } = await workflowRun();
    // The workflow as a runner reaches it through the run's wrappers: its sub-threads come fenced.
    let reached = thread as Thread & Partial<Workflow> & { inner?: Thread };
    while (typeof reached.thread !== "function" && reached.inner) reached = reached.inner;
    const planner = (reached as Workflow).thread("planner");
    const taker = new ThreadLeases(store, "taker", 150);
    let held = await taker.tryAcquire(threadId);
    for (let waited = 0; !held && waited < 200; waited++) {
      await sleep(10);
      held = await taker.tryAcquire(threadId);
    }
    expect(held).toBeDefined();
    await usurp("main");
    const before = await workflowSnapshot(threadId);
    expect(
      LeaseLostError.isInstance(
        await refusedWith(thread.update({ metadata: { ...thread.metadata, late: true } })),
      ),
    ).toBe(true);
    expect(
      LeaseLostError.isInstance(await refusedWith(planner.append({ role: "assistant", text: "late" }))),
    ).toBe(true);
    expect(await workflowSnapshot(threadId)).toEqual(before);
    await held?.release();
    await ended();
  });

  it("refuse a run's delete when the new holder writes to main after the delete's check, before anything is deleted", async () => {
    const { threadId, thread, usurp, ended } = await workflowRun();
    aroundFirstDelete(() => usurp("main"), "before");
    const refused = await refusedWith(thread.delete());
    expect(LeaseLostError.isInstance(refused)).toBe(true);
    await ended();
    const kept = await workflowSnapshot(threadId);
    expect((kept.threads as Record<string, { messages: string[] }>).main?.messages).toEqual([
      "work",
      "usurper main",
    ]);
  });

  it("end a run whose delete was refused part-way with LeaseLostError; the workflow's own state is kept", async () => {
    const { threadId, thread, usurp, ended } = await workflowRun();
    const planner = ((await store.get(threadId)) as Workflow).thread("planner").id;
    // `main` is deleted, then the new holder's write to `planner` refuses that sub-thread's delete.
    aroundFirstDelete(() => usurp("planner"), "after");
    const refused = await refusedWith(thread.delete());
    expect(LeaseLostError.isInstance(refused)).toBe(true);
    await ended();
    expect((await store.getState(threadId)).id).toBe(threadId);
    expect((await (await store.get(planner)).messages()).map(messageText)).toEqual([
      "plan",
      "usurper planner",
    ]);
  });
});

import { messageText, openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LeaseLostError } from "../src/errors.js";
import { LEASE_THREAD_TYPE, type LeaseState, LeaseThread, leaseIdOf } from "../src/lease-thread.js";
import { createThreadService, type ThreadService } from "../src/thread-service.js";
import { heldRunner } from "./fake-runners.js";

let store: ThreadStore;
const services: ThreadService[] = [];

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  for (const service of services.splice(0)) await service.close({ abort: true });
});

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
  await store.save(new LeaseThread(state), { ifRevision });
}

const OPERATIONS: Record<string, (thread: Thread) => Promise<unknown>> = {
  checkpoint: (thread) => thread.checkpoint("late"),
  fork: (thread) => thread.fork({ id: "late-fork" }),
  delete: (thread) => thread.delete(),
};

describe("a leased run's checkpoint, fork and delete", () => {
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
      const lease = (await store.get(leaseIdOf(threadId))).toJSON() as LeaseState;
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

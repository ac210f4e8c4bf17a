import { setTimeout as sleep } from "node:timers/promises";
import { openStore } from "@skein/thread-core";
import { expect, it } from "vitest";
import { ConcurrencyGate } from "../src/concurrency-gate.js";
import { leaseDocumentType } from "../src/lease-document.js";
import { ThreadLeases } from "../src/thread-lease.js";
import { ThreadQueues } from "../src/thread-queues.js";

it("stops timing another instance's lease once this instance has no more work for the thread", async () => {
  const store = await openStore("memory:");
  store.registry.ensure(leaseDocumentType);
  const thread = await store.create();
  const elsewhere = await new ThreadLeases(store, "instance-2", 60_000).tryAcquire(thread.id);
  if (!elsewhere) throw new Error("the lease of a new thread is free");
  const leases = new ThreadLeases(store, "instance-1", 60_000);
  const queues = new ThreadQueues({ gate: new ConcurrencyGate(1), leases, pollMs: 1, maxPollMs: 2 });
  const failures: unknown[] = [];
  await queues.admit(thread.id, async () => ({
    kind: "message",
    execute: async () => {
      throw new Error("never runs: the thread is held elsewhere");
    },
    fail: (error) => failures.push(error),
  }));
  // Waiting for the lease, this instance times the holder's unchanged revision.
  while (leases.watched === 0) await sleep(1);
  expect(leases.watched).toBe(1);
  queues.reject(thread.id, () => new Error("given up"));
  await queues.whenIdle(thread.id);
  expect(failures).toHaveLength(1);
  expect(leases.watched).toBe(0);
  await elsewhere.release();
  await store.close();
});

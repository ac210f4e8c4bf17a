import {
  InvalidOptionError,
  InvalidThreadStateError,
  ThreadNotFoundError,
  UnsupportedOperationError,
} from "../../errors.js";
import type { LogDriver } from "../../local/log-driver.js";
import type { RetentionOptions } from "../../spec/thread-store.js";
import type { ThreadStore } from "../../store/store.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const HOUR = 3_600_000;

/** A scope of the case's store whose retention clock the case moves (no waiting on the wall clock). */
function retainedScope(context: SuiteContext, name: string, policy: Omit<RetentionOptions, "now"> = {}) {
  const clock = { now: Date.now() };
  const store = context.store.scope(name, { retention: { ...policy, now: () => clock.now } });
  return { store, clock };
}

async function ids(store: ThreadStore): Promise<string[]> {
  return (await store.list({ limit: 1000 })).items.map((item) => item.id).sort();
}

/** `store.count()`, or undefined where the store says it cannot count without reading every thread. */
async function countOf(store: ThreadStore): Promise<number | undefined> {
  try {
    return await store.count();
  } catch (error) {
    if (UnsupportedOperationError.isInstance(error)) return undefined;
    throw error;
  }
}

/** Issue 40: retention. Expired threads are gone for readers at once; `sweep` deletes them, forks kept whole. */
export function retentionCases(context: SuiteContext): void {
  conformanceCase(context, "a thread past its expiresAt is gone for readers at once", async () => {
    const { store, clock } = retainedScope(context, "expiry");
    const thread = await store.create({ id: "t", expiresAt: clock.now + 60_000, title: "short-lived" });
    await thread.append({ id: "m1", role: "user", text: "hello" });
    await store.create({ id: "stays" });
    const json = JSON.parse(JSON.stringify(thread));
    expect((await store.list()).items.find((item) => item.id === "t")?.expiresAt).toBe(
      new Date(clock.now + 60_000).toISOString(),
    );
    expect((await store.get("t")).id).toBe("t");

    clock.now += 60_000; // its expiresAt: gone from that moment, with no sweep run
    expect(await caught(store.get("t"))).toBeInstanceOf(ThreadNotFoundError);
    expect(await caught(store.getState("t"))).toBeInstanceOf(ThreadNotFoundError);
    expect(await caught(store.export("t"))).toBeInstanceOf(ThreadNotFoundError);
    expect(await caught(store.open(json))).toBeInstanceOf(ThreadNotFoundError);
    expect(await ids(store)).toEqual(["stays"]);
    // The id is free again: creating it replaces the expired thread.
    const again = await store.create({ id: "t" });
    expect(await again.messages()).toEqual([]);
    expect(await ids(store)).toEqual(["stays", "t"]);
  });

  conformanceCase(context, "update sets and clears expiresAt; it travels with an export", async () => {
    const { store, clock } = retainedScope(context, "update");
    const thread = await store.create({ id: "t" });
    const at = new Date(clock.now + HOUR);
    for (const given of [at, at.toISOString(), at.getTime()]) {
      await thread.update({ expiresAt: given });
      expect(JSON.parse(JSON.stringify(await store.get("t"))).expiresAt).toBe(at.toISOString());
    }
    const exported = (await store.export("t")) as { expiresAt?: string };
    expect(exported.expiresAt).toBe(at.toISOString());
    const copy = await context.store.scope("update-copy").import(exported);
    expect(JSON.parse(JSON.stringify(copy)).expiresAt).toBe(at.toISOString());

    clock.now += 2 * HOUR;
    expect(await caught(store.get("t"))).toBeInstanceOf(ThreadNotFoundError);
    // Cleared through a handle bound before it expired: back for readers, and no sweep takes it.
    await thread.update({ expiresAt: null });
    expect((await store.get("t")).id).toBe("t");
    expect(JSON.parse(JSON.stringify(await store.get("t")))).not.toHaveProperty("expiresAt");
    expect((await store.sweep()).deleted).toBe(0);
    expect(await ids(store)).toEqual(["t"]);
  });

  conformanceCase(context, "a fork outlives its parent's expiry and keeps every message", async () => {
    const { store, clock } = retainedScope(context, "fork");
    const parent = await store.create({ id: "parent", expiresAt: clock.now + 60_000 });
    await parent.append([
      { id: "m1", role: "user", text: "shared one" },
      { id: "m2", role: "assistant", text: "shared two" },
    ]);
    const fork = await parent.fork({ id: "fork" });
    await fork.append({ id: "m3", role: "user", text: "the fork's own" });
    expect(JSON.parse(JSON.stringify(fork))).not.toHaveProperty("expiresAt");

    clock.now += 120_000;
    expect(await caught(store.get("parent"))).toBeInstanceOf(ThreadNotFoundError);
    const report = await store.sweep();
    expect([report.deleted, report.skipped]).toEqual([1, 0]);
    expect(await caught(context.store.scope("fork").get("parent"))).toBeInstanceOf(ThreadNotFoundError);
    const read = await store.get("fork");
    expect((await read.messages()).map((message) => message.id)).toEqual(["m1", "m2", "m3"]);
    expect(await ids(store)).toEqual(["fork"]);
  });

  conformanceCase(context, "sweep deletes only what expired, and a second sweep finds nothing", async () => {
    const { store, clock } = retainedScope(context, "sweep", { idleFor: "1h" });
    for (const id of ["idle-1", "idle-2", "idle-3"]) await store.create({ id });
    await store.create({ id: "far-expiry", expiresAt: clock.now + 10 * HOUR });
    await store.create({ id: "soon-expiry", expiresAt: clock.now + 30 * 60_000 });
    const other = context.store.scope("sweep-other");
    await other.create({ id: "idle-1" });
    await context.store.create({ id: "unscoped" });

    clock.now += 40 * 60_000; // past soon-expiry's own time, before anything is idle for an hour
    const first = await store.sweep();
    expect([first.examined, first.deleted, first.skipped]).toEqual([1, 1, 0]);
    expect(await ids(store)).toEqual(["far-expiry", "idle-1", "idle-2", "idle-3"]);

    clock.now += HOUR; // now every thread here is idle: the earliest of the rules wins
    const before = await countOf(store);
    if (before !== undefined) expect(before).toBe(0);
    const batches: number[] = [];
    const second = await store.sweep({
      batchSize: 2,
      onProgress: (progress) => batches.push(progress.deleted),
    });
    expect([second.deleted, second.skipped]).toEqual([4, 0]);
    expect(batches[batches.length - 1]).toBe(4);
    expect((await store.sweep()).examined).toBe(0);
    // Deleted in the store, not only hidden: a scope of the same name without the policy sees nothing either.
    expect(await ids(context.store.scope("sweep"))).toEqual([]);
    // Other scopes and the unscoped store are not this store's to sweep.
    expect(await ids(other)).toEqual(["idle-1"]);
    expect(await ids(context.store)).toEqual(["unscoped"]);
  });

  conformanceCase(context, "keep vetoes expiry for readers and sweeps", async () => {
    const { store, clock } = retainedScope(context, "keep", {
      maxAge: "1d",
      keep: (summary) => summary.metadata.pinned === true,
    });
    await store.create({ id: "pinned", metadata: { pinned: true } });
    await store.create({ id: "plain" });
    clock.now += 2 * 24 * HOUR;
    expect(await ids(store)).toEqual(["pinned"]);
    const before = await countOf(store);
    if (before !== undefined) expect(before).toBe(1);
    const report = await store.sweep();
    expect([report.deleted, report.skipped]).toEqual([1, 1]);
    expect((await store.get("pinned")).id).toBe("pinned");
    expect(await ids(context.store.scope("keep"))).toEqual(["pinned"]);
  });

  conformanceCase(context, "sweep never deletes a thread written after it picked it", async () => {
    const { store, clock } = retainedScope(context, "writer", { idleFor: "1h" });
    for (const id of ["a", "b", "written"]) await store.create({ id });
    clock.now += 2 * HOUR;
    // A writer holding the thread appends between the sweep's read of it and its delete.
    const held = await context.store.scope("writer").get("written");
    const driver = (store as unknown as { driver: LogDriver }).driver;
    const fencedDelete = driver.delete.bind(driver);
    let wrote = false;
    driver.delete = async (id, options) => {
      if (id === "written" && !wrote) {
        wrote = true;
        await held.append({ id: "late", role: "user", text: "still here" });
      }
      return fencedDelete(id, options);
    };
    const report = await store.sweep();
    expect(wrote).toBe(true);
    expect([report.deleted, report.skipped]).toEqual([2, 1]);
    const survivor = await context.store.scope("writer").get("written");
    expect((await survivor.messages()).map((message) => message.id)).toEqual(["late"]);
    expect(await ids(context.store.scope("writer"))).toEqual(["written"]);
  });

  conformanceCase(
    context,
    "malformed durations, negative ages and bad expiry times are refused",
    async () => {
      for (const idleFor of ["30x", "-1d", "", "1.5.2h", -5, 0, Number.NaN, "30 days"]) {
        const error = await caught(
          (async () => context.store.scope("bad", { retention: { idleFor } as RetentionOptions }))(),
        );
        expect(error).toBeInstanceOf(InvalidOptionError);
        expect(error.message).toContain("retention.idleFor");
      }
      expect(
        await caught((async () => context.store.scope("bad", { retention: { maxAge: "-3h" } as never }))()),
      ).toBeInstanceOf(InvalidOptionError);
      expect(
        await caught((async () => context.store.scope("bad", { retention: { keep: "yes" } as never }))()),
      ).toBeInstanceOf(InvalidOptionError);
      for (const expiresAt of ["tomorrow", "2027-01-01", Number.POSITIVE_INFINITY, {}]) {
        expect(
          await caught(context.store.create({ id: "bad", expiresAt: expiresAt as never })),
        ).toBeInstanceOf(InvalidThreadStateError);
      }
      expect(await caught(context.store.get("bad"))).toBeInstanceOf(ThreadNotFoundError);
      const thread = await context.store.create({ id: "good" });
      expect(await caught(thread.update({ expiresAt: "next week" as never }))).toBeInstanceOf(
        InvalidThreadStateError,
      );
      expect((await context.store.get("good")).revision).toBe(0);
      expect(await caught(context.store.sweep({ batchSize: 0 }))).toBeInstanceOf(InvalidOptionError);
    },
  );
}

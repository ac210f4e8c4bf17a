import assert from "node:assert/strict";
import {
  ConcurrencyError,
  ConflictError,
  HeadMovedError,
  type SkeinError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "../errors.js";
import { type LogDriver, type LogRecord, newHeadSegment, type SegmentInfo } from "../local/log-driver.js";
import { type Message, normalizeMessage } from "../message.js";
import type { HistoryEvent } from "../thread.js";
import { registerCase, type SuiteOptions } from "./test-runner.js";

/**
 * Options of `runLogDriverSuite`: the same shape as `runConformanceSuite`'s (a name, cleanup, what to skip with
 * why, your test runner's `describe` and `it`), with a driver instead of a store for each case.
 */
export interface LogDriverSuiteOptions extends SuiteOptions {
  /** A driver on a fresh, empty store for each case; the suite closes it afterwards. */
  createDriver: () => Promise<LogDriver> | LogDriver;
}

type Case = (driver: LogDriver) => Promise<void>;

const END_CASE =
  "end goes with the length: set by createLog, replaced by a commit (plain appends too), kept without one, fenced by rewriteRecord (drivers with storesEnd)";

/**
 * The `LogDriver` contract as named cases, run against a driver directly (beside the store-level
 * `runConformanceSuite`): a new backend learns here which step of a commit it got wrong.
 * @example runLogDriverSuite({ name: "sqlite", createDriver: () => new SqliteLogDriver(":memory:"), describe, it });
 */
export function runLogDriverSuite(options: LogDriverSuiteOptions): void {
  options.describe(`log driver: ${options.name}`, () => {
    for (const [name, body] of Object.entries(CASES)) {
      registerCase(options, name, async (control) => {
        const driver = await options.createDriver();
        try {
          const missing = NEEDS[name]?.(driver);
          if (missing !== undefined) {
            control.skip(`${options.name}: ${missing}`);
            return;
          }
          await body(driver);
        } finally {
          await driver.close().catch(() => undefined);
          await options.cleanup?.();
        }
      });
    }
  });
}

/** Cases that hold only for drivers declaring an optional capability: the reason a driver without it skips. */
const NEEDS: Record<string, (driver: LogDriver) => string | undefined> = {
  "delete with ifRevision removes only at that revision, in the same step (drivers with fencedDelete)": (
    driver,
  ) =>
    driver.fencedDelete === true
      ? undefined
      : "the driver has no fencedDelete, so its store refuses a delete with ifRevision",
  "dropSegment removes a segment nothing references, and then its base; never a head or a continued segment":
    (driver) =>
      driver.dropSegment
        ? undefined
        : "the driver has no dropSegment, so a streamed reply's batches stay after it ends",
  [END_CASE]: (driver) =>
    driver.storesEnd === true
      ? undefined
      : "the driver has no storesEnd, so an encrypting store keeps the end in the record's context",
};

const message = (id: string, text = id, role: Message["role"] = "user"): Message =>
  normalizeMessage({ id, role, text });
const ids = (messages: Message[]) => messages.map((value) => value.id);

async function newThread(driver: LogDriver, id: string): Promise<LogRecord> {
  const now = new Date().toISOString();
  const head = newHeadSegment(driver, id, null, 0);
  const record: LogRecord = {
    kind: "log",
    id,
    type: driver.nativeType,
    createdAt: now,
    updatedAt: now,
    revision: 0,
    metadata: {},
    context: {},
    head: head.id,
    length: 0,
    events: [],
  };
  await driver.createLog(record, head);
  return record;
}

/** A head segment id for `threadId`, placed where its driver wants it (a Redis Cluster slot). */
function headOf(driver: LogDriver, threadId: string): string {
  return newHeadSegment(driver, threadId, null, 0).id;
}

async function rejects(promise: Promise<unknown>, type: { isInstance(value: unknown): boolean }) {
  try {
    await promise;
  } catch (error) {
    assert.ok(type.isInstance(error), `expected another error, got ${(error as SkeinError).name}: ${error}`);
    return error as SkeinError;
  }
  assert.fail("expected the call to throw, but it succeeded");
}

const CASES: Record<string, Case> = {
  "createLog makes a thread read gives back; a taken id is ThreadExistsError": async (driver) => {
    const record = await newThread(driver, "t");
    await rejects(newThread(driver, "t"), ThreadExistsError);
    assert.deepEqual(await driver.read("t"), record);
    assert.equal(await driver.read("missing"), undefined);
    const head = (await driver.segment(record.head)) as SegmentInfo;
    assert.deepEqual({ base: head.base, start: head.start }, { base: null, start: 0 });
  },

  "commit appends new messages and returns them as stored, bumping the revision once": async (driver) => {
    const record = await newThread(driver, "t");
    const appended = [message("a"), message("s", "rules", "system"), message("b")];
    const result = await driver.commit("t", { expectHead: record.head, append: appended, known: record });
    assert.equal(result.held, undefined);
    assert.deepEqual(result.messages, JSON.parse(JSON.stringify(appended)));
    assert.deepEqual(
      { revision: result.record.revision, length: result.record.length },
      { revision: 1, length: 3 },
    );
    assert.deepEqual(await driver.read("t"), result.record);
    assert.deepEqual(ids(await driver.readSegment(record.head, 0, 10)), ["a", "s", "b"]);
    assert.deepEqual(ids(await driver.readSegment(record.head, 1, 2)), ["s"]);
    assert.deepEqual(await driver.systemOffsets(record.head, 3), [1]);
    assert.deepEqual(await driver.systemOffsets(record.head, 1), []);
    assert.deepEqual(await driver.locate(record.head, "b", 3), { offset: 2 });
    assert.equal(await driver.locate(record.head, "b", 2), undefined);
    assert.equal(await driver.locate(record.head, "nope", 3), undefined);
  },

  "ids the head holds already are answered with the stored messages, and nothing is written": async (
    driver,
  ) => {
    const record = await newThread(driver, "t");
    const first = await driver.commit("t", { expectHead: record.head, append: [message("a")] });
    const retried = { ...message("a", "other text"), createdAt: "2020-01-01T00:00:00.000Z" };
    const again = await driver.commit("t", {
      expectHead: record.head,
      append: [message("b"), retried],
      metadata: { step: 2 },
      known: first.record,
    });
    assert.deepEqual(again.held, first.messages);
    const stored = (await driver.read("t")) as LogRecord;
    assert.deepEqual(
      { revision: stored.revision, length: stored.length, metadata: stored.metadata },
      {
        revision: 1,
        length: 1,
        metadata: {},
      },
    );
    assert.deepEqual(ids(await driver.readSegment(record.head, 0, 10)), ["a"]);
  },

  "commit refuses, writing nothing: a missing thread, a stale ifRevision, a moved head, in that order":
    async (driver) => {
      const record = await newThread(driver, "t");
      await driver.commit("t", { expectHead: record.head, append: [message("a")] });
      await rejects(
        driver.commit("missing", { expectHead: headOf(driver, "missing"), append: [message("x")] }),
        ThreadNotFoundError,
      );
      const stale = await rejects(
        driver.commit("t", { expectHead: headOf(driver, "t"), ifRevision: 0, append: [message("x")] }),
        ConcurrencyError,
      );
      assert.equal((stale as ConcurrencyError).actualRevision, 1);
      await rejects(
        driver.commit("t", { expectHead: headOf(driver, "t"), append: [message("x")] }),
        HeadMovedError,
      );
      await driver.putState("state", { $type: "acme.note", id: "state" });
      await rejects(
        driver.commit("state", { expectHead: headOf(driver, "state"), append: [message("x")] }),
        ThreadNotFoundError,
      );
      assert.deepEqual(ids(await driver.readSegment(record.head, 0, 10)), ["a"]);
      assert.equal(((await driver.read("t")) as LogRecord).revision, 1);
    },

  "a checkpoint's point is the end after the append; metadata and context are replaced": async (driver) => {
    const record = await newThread(driver, "t");
    const event: HistoryEvent = {
      kind: "checkpoint",
      checkpoint: {
        id: "cp-1",
        threadId: "t",
        point: { segment: record.head, offset: 0, position: 0 },
        createdAt: new Date().toISOString(),
      },
      at: new Date().toISOString(),
      revision: 0,
    };
    const result = await driver.commit("t", {
      expectHead: record.head,
      append: [message("a"), message("b")],
      event,
      metadata: { step: 1 },
      context: { notes: { n: 1 } },
    });
    assert.equal(result.record.revision, 1);
    assert.deepEqual(result.record.metadata, { step: 1 });
    assert.deepEqual(result.record.context, { notes: { n: 1 } });
    const recorded = result.record.events.at(-1) as Extract<HistoryEvent, { kind: "checkpoint" }>;
    assert.deepEqual(recorded.checkpoint.point, { segment: record.head, offset: 2, position: 2 });
    assert.equal(recorded.revision, 1);
    assert.deepEqual(await driver.read("t"), result.record);
  },

  "a rollback fills its from with the end, then starts the new head": async (driver) => {
    const record = await newThread(driver, "t");
    await driver.commit("t", { expectHead: record.head, append: [message("a"), message("b")] });
    const to = { segment: record.head, offset: 1, position: 1 };
    const newHead = newHeadSegment(driver, "t", { segment: record.head, offset: 1 }, 1);
    const at = new Date().toISOString();
    const result = await driver.commit("t", {
      expectHead: record.head,
      newHead,
      event: { kind: "rollback", from: to, to, target: "a", at, revision: 0 },
      append: [message("c")],
    });
    assert.equal(result.held, undefined);
    assert.deepEqual(
      { head: result.record.head, length: result.record.length },
      { head: newHead.id, length: 2 },
    );
    const rollback = result.record.events.at(-1) as Extract<HistoryEvent, { kind: "rollback" }>;
    assert.deepEqual(rollback.from, { segment: record.head, offset: 2, position: 2 });
    assert.deepEqual(ids(await driver.readSegment(newHead.id, 0, 10)), ["c"]);
    // The abandoned segment is still there for history() and checkpoints.
    assert.deepEqual(ids(await driver.readSegment(record.head, 0, 10)), ["a", "b"]);
    assert.deepEqual((await driver.segment(newHead.id))?.base, { segment: record.head, offset: 1 });
  },

  "states are kept apart from logs, with their own revisions; list pages in id order": async (driver) => {
    await newThread(driver, "log");
    await rejects(driver.putState("log", { $type: "acme.note", id: "log" }), ConflictError);
    assert.equal((await driver.putState("state", { $type: "acme.note", id: "state" })).revision, 1);
    await rejects(
      driver.putState("state", { $type: "acme.note", id: "state" }, { ifRevision: 0 }),
      ConcurrencyError,
    );
    const next = await driver.putState("state", { $type: "acme.other", id: "state" }, { ifRevision: 1 });
    assert.deepEqual(
      { revision: next.revision, state: next.state },
      {
        revision: 2,
        state: { $type: "acme.other", id: "state" },
      },
    );
    assert.deepEqual((await driver.read("state"))?.kind, "state");
    await driver.putState("b/1", { $type: "acme.note", id: "b/1" });
    await driver.putState("b/2", { $type: "acme.note", id: "b/2" });
    const all = await driver.list({ limit: 10 });
    assert.deepEqual(
      all.map((summary) => [summary.id, summary.type]),
      [
        ["b/1", "acme.note"],
        ["b/2", "acme.note"],
        ["log", driver.nativeType],
        ["state", "acme.other"],
      ],
    );
    assert.deepEqual(
      (await driver.list({ prefix: "b/", after: "b/1", limit: 10 })).map((s) => s.id),
      ["b/2"],
    );
    assert.deepEqual(
      (await driver.list({ after: "b/2", limit: 1 })).map((s) => s.id),
      ["log"],
    );
  },

  "delete removes a record; deleting again is false": async (driver) => {
    await newThread(driver, "t");
    await driver.putState("s", { $type: "acme.note", id: "s" });
    assert.equal(await driver.delete("t"), true);
    assert.equal(await driver.delete("s"), true);
    assert.equal(await driver.delete("t"), false);
    assert.equal(await driver.read("t"), undefined);
    assert.deepEqual(await driver.list({ limit: 10 }), []);
  },

  "a commit that changes nothing checks ifRevision and writes nothing (a fenced fork's check)": async (
    driver,
  ) => {
    const record = await newThread(driver, "t");
    await driver.commit("t", { expectHead: record.head, append: [message("a")] });
    const stale = await rejects(
      driver.commit("t", { expectHead: record.head, ifRevision: 0 }),
      ConcurrencyError,
    );
    assert.equal((stale as ConcurrencyError).actualRevision, 1);
    const checked = await driver.commit("t", { expectHead: record.head, ifRevision: 1 });
    assert.equal(checked.record.revision, 1);
    const stored = (await driver.read("t")) as LogRecord;
    assert.deepEqual({ revision: stored.revision, length: stored.length }, { revision: 1, length: 1 });
  },

  "delete with ifRevision removes only at that revision, in the same step (drivers with fencedDelete)":
    async (driver) => {
      const record = await newThread(driver, "t");
      await driver.commit("t", { expectHead: record.head, append: [message("a")] });
      await driver.putState("s", { $type: "acme.note", id: "s" });
      const stale = await rejects(driver.delete("t", { ifRevision: 0 }), ConcurrencyError);
      assert.equal((stale as ConcurrencyError).actualRevision, 1);
      await rejects(driver.delete("s", { ifRevision: 2 }), ConcurrencyError);
      assert.equal(((await driver.read("t")) as LogRecord).revision, 1);
      assert.deepEqual(ids(await driver.readSegment(record.head, 0, 10)), ["a"]);
      assert.equal((await driver.read("s"))?.revision, 1);
      assert.equal(await driver.delete("t", { ifRevision: 1 }), true);
      assert.equal(await driver.delete("s", { ifRevision: 1 }), true);
      assert.equal(await driver.delete("t", { ifRevision: 1 }), false);
      assert.deepEqual(await driver.list({ limit: 10 }), []);
    },

  "importSegment writes a segment no thread heads, by the rules": async (driver) => {
    const info: SegmentInfo = {
      id: "imported/../segment",
      base: null,
      start: 0,
      createdAt: new Date().toISOString(),
    };
    await driver.importSegment(info, [message("a"), message("b")], 0);
    await driver.importSegment(info, [message("b"), message("c")], 1);
    await driver.importSegment(info, [message("a")], 0);
    assert.deepEqual(ids(await driver.readSegment(info.id, 0, 10)), ["a", "b", "c"]);
    assert.deepEqual(await driver.segment(info.id), info);
    await rejects(driver.importSegment(info, [message("x")], 0), ConflictError);
    await rejects(driver.importSegment(info, [message("a", "changed")], 0), ConflictError);
    await rejects(driver.importSegment(info, [message("z")], 5), ConflictError);
    await rejects(driver.importSegment({ ...info, id: "other" }, [message("a")], 2), ConflictError);
    const record = await newThread(driver, "live");
    await rejects(
      driver.importSegment({ ...info, id: record.head }, [message("intruder")], 0),
      ConflictError,
    );
    assert.deepEqual(await driver.readSegment(record.head, 0, 10), []);
    // A head a rollback starts is live at once; a deleted thread's head no longer is.
    const newHead = newHeadSegment(driver, "live", null, 0);
    const to = { segment: record.head, offset: 0, position: 0 };
    const at = new Date().toISOString();
    await driver.commit("live", {
      expectHead: record.head,
      newHead,
      event: { kind: "rollback", from: to, to, target: "start", at, revision: 0 },
    });
    await rejects(driver.importSegment(newHead, [message("intruder")], 0), ConflictError);
    await driver.delete("live");
    const gone = await driver.segment(newHead.id);
    if (gone) {
      await driver.importSegment(gone, [message("after")], 0);
      assert.deepEqual(ids(await driver.readSegment(newHead.id, 0, 10)), ["after"]);
    }
    assert.deepEqual(await driver.locate(info.id, "c", 3), { offset: 2 });
  },

  "dropSegment removes a segment nothing references, and then its base; never a head or a continued segment":
    async (driver) => {
      const drop = (id: string) => (driver.dropSegment as (id: string) => Promise<void>).call(driver, id);
      const at = new Date().toISOString();
      const base: SegmentInfo = { id: "dropped-base", base: null, start: 0, createdAt: at };
      const child: SegmentInfo = {
        id: "dropped-child",
        base: { segment: base.id, offset: 2 },
        start: 2,
        createdAt: at,
      };
      await driver.importSegment(base, [message("a"), message("b")], 0);
      await driver.importSegment(child, [message("c")], 0);
      await drop(base.id);
      assert.deepEqual(
        ids(await driver.readSegment(base.id, 0, 10)),
        ["a", "b"],
        "a continued segment is kept",
      );
      await drop(child.id);
      assert.equal(await driver.segment(child.id), undefined);
      assert.deepEqual(await driver.readSegment(child.id, 0, 10), []);
      assert.equal(await driver.segment(base.id), undefined, "its base, referenced by it alone, goes too");
      await drop("never-made");
      const record = await newThread(driver, "t");
      await drop(record.head);
      const after = await driver.commit("t", { expectHead: record.head, append: [message("x")] });
      assert.deepEqual(ids(after.messages), ["x"], "a thread's head is kept");
    },

  "concurrent imports of one segment write it once": async (driver) => {
    const info: SegmentInfo = {
      id: "shared-base",
      base: null,
      start: 0,
      createdAt: new Date().toISOString(),
    };
    const messages = [message("a"), message("b")];
    await Promise.all(Array.from({ length: 6 }, () => driver.importSegment(info, messages, 0)));
    assert.deepEqual(ids(await driver.readSegment(info.id, 0, 10)), ["a", "b"]);
    const child: SegmentInfo = { ...info, id: "child", base: { segment: info.id, offset: 2 }, start: 2 };
    await Promise.all(Array.from({ length: 4 }, () => driver.importSegment(child, [message("c")], 0)));
    assert.deepEqual(ids(await driver.readSegment(child.id, 0, 10)), ["c"]);
  },

  [END_CASE]: async (driver) => {
    const now = new Date().toISOString();
    const head = newHeadSegment(driver, "t", null, 0);
    const created: LogRecord = {
      ...{ kind: "log", id: "t", type: driver.nativeType, createdAt: now, updatedAt: now },
      ...{ revision: 0, metadata: {}, context: {}, head: head.id, length: 0, events: [], end: "e0" },
    };
    await driver.createLog(created, head);
    assert.equal(((await driver.read("t")) as LogRecord).end, "e0");
    // One message alone (the plain-append path of drivers that have one), then several, then a context change.
    const one = await driver.commit("t", {
      expectHead: head.id,
      append: [message("a")],
      end: "e1",
      known: created,
    });
    assert.deepEqual({ end: one.record.end, length: one.record.length }, { end: "e1", length: 1 });
    assert.deepEqual(await driver.read("t"), one.record);
    const more = [message("b"), message("c")];
    const two = await driver.commit("t", { expectHead: head.id, append: more, end: "e3", known: one.record });
    assert.equal(two.record.end, "e3");
    const kept = await driver.commit("t", { expectHead: head.id, context: { x: 1 }, known: two.record });
    assert.deepEqual({ end: kept.record.end, length: kept.record.length }, { end: "e3", length: 3 });
    assert.equal(((await driver.read("t")) as LogRecord).end, "e3");
    // A rewrite fenced by another end writes nothing; by the stored one, it replaces it and keeps the revision.
    if (driver.rewriteRecord) {
      assert.equal(
        await driver.rewriteRecord("t", { events: [], end: { expected: "e1", replacement: "r" } }),
        false,
      );
      assert.equal(((await driver.read("t")) as LogRecord).end, "e3");
      assert.equal(
        await driver.rewriteRecord("t", { events: [], end: { expected: "e3", replacement: "r3" } }),
        true,
      );
      const rewritten = (await driver.read("t")) as LogRecord;
      assert.deepEqual(
        { end: rewritten.end, revision: rewritten.revision },
        { end: "r3", revision: kept.record.revision },
      );
    }
  },

  "read with the caller's known record answers as a fresh read would": async (driver) => {
    const record = await newThread(driver, "t");
    const first = await driver.commit("t", { expectHead: record.head, append: [message("a")] });
    assert.deepEqual(await driver.read("t", first.record), first.record);
    const second = await driver.commit("t", { expectHead: record.head, metadata: { moved: true } });
    assert.deepEqual(await driver.read("t", first.record), second.record);
    const behind = await driver.commit("t", {
      expectHead: record.head,
      append: [message("b")],
      known: first.record,
    });
    assert.deepEqual(behind.record, await driver.read("t"));
    assert.deepEqual(behind.record.metadata, { moved: true });
  },
};

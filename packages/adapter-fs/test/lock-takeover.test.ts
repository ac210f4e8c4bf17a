import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { commitChange } from "../src/commit-change.js";
import { claimSeal, publishSeal } from "../src/head-seal.js";
import {
  FsLogDriver,
  fsStore,
  LockLostError,
  LockOutcomeUnknownError,
  LockTimeoutError,
} from "../src/index.js";
import { StoreLayout } from "../src/store-layout.js";
import { collectOutput, exited, printed, runChild, startChild } from "./child-process.js";
import { seededRandom, stopWhileHolding as stopHolding, until } from "./stopped-writers.js";
import { temporaryDirectory } from "./temporary-directory.js";

/** Low, so that a stopped owner's lock goes stale quickly; far below the waiters' lockTimeoutMs. */
const STALE_MS = 150;
/** How many times the appender is stopped while it holds the lock and taken over. */
const TAKEOVERS = 30;
const random = seededRandom("lock-takeover");
/** Stops the appender at random moments until a stop lands while it holds the lock declaring `writes`. */
const stopWhileHolding = (child: ChildProcess, lockPath: string, writes: string) =>
  stopHolding(child, lockPath, writes, random, { minGapMs: 1, gapMs: 15, attempts: 200 });

/** The ids of the writer's output lines starting with `kind` ("ack", "lost", "unknown"). */
function idsOf(stdout: string, kind: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(`${kind} `))
    .flatMap((line) => line.slice(kind.length + 1).split(" "));
}

async function stopWriter(child: ChildProcess, output: ReturnType<typeof collectOutput>): Promise<void> {
  child.kill("SIGCONT");
  child.stdin?.write("stop\n");
  await printed(output, "done");
  expect(await exited(child)).toBe(0);
}

/**
 * How the stopped appender's lock looks to the taker: as written on this host, or as written where its
 * owner cannot be checked (no start time: a system without /proc; the same holds for another host or
 * container sharing the directory). Such an owner may resume as well, so its lock is fenced the same way.
 */
const OWNERS = {
  "on this host": () => {},
  "that cannot be checked": (lockPath: string) => {
    const content = JSON.parse(readFileSync(lockPath, "utf8")) as Record<string, unknown>;
    writeFileSync(lockPath, JSON.stringify({ ...content, started: undefined }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath, old, old);
  },
} satisfies Record<string, (lockPath: string) => void>;

describe("taking over the lock of a writer that stopped running (SIGSTOP)", () => {
  it.each(Object.entries(OWNERS))(
    "takes a stopped appender's lock over (an owner %s); every acknowledged append lands once, nothing else",
    async (_owner, disguise) => {
      const directory = await temporaryDirectory();
      // A takeover that did not happen would leave this append waiting 10 s, then LockTimeoutError.
      const store = fsStore({ directory, staleLockMs: STALE_MS, lockTimeoutMs: 10_000 });
      const thread = await store.create({ id: "t" });
      const lockPath = new StoreLayout(directory).threadLockPath("t");
      const child = startChild("takeover-appender.ts", [directory, "t", "A", String(STALE_MS), "append"]);
      const output = collectOutput(child);
      const ours: string[] = [];
      try {
        await printed(output, "ready");
        await until(() => idsOf(output.stdout(), "ack").length > 0, "the writer's first append");
        for (let trial = 0; trial < TAKEOVERS; trial++) {
          await stopWhileHolding(child, lockPath, "segment");
          disguise(lockPath);
          const id = `B-${trial}`;
          await thread.append({ id, role: "user", text: id });
          ours.push(id);
          // While the writer is still stopped, what a reader sees holds nothing of its unfinished append.
          const seen = (await thread.messages()).map((message) => message.id);
          expect(seen.at(-1)).toBe(id);
          const settled = output.stdout().split("\n").length;
          child.kill("SIGCONT");
          await until(() => output.stdout().split("\n").length > settled + 1, "the writer to go on");
        }
        await stopWriter(child, output);
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGCONT");
          child.kill("SIGKILL");
        }
      }
      const acknowledged = idsOf(output.stdout(), "ack");
      const lost = idsOf(output.stdout(), "lost");
      const unknown = new Set(idsOf(output.stdout(), "unknown"));
      console.log(
        `lock-takeover: ${TAKEOVERS} takeovers, ${acknowledged.length} acknowledged, ${lost.length} lost, ${unknown.size} unknown`,
      );
      // Read by a store that shares nothing with the writers, and by another process.
      const reader = fsStore({ directory });
      const ids = (await (await reader.get("t")).messages()).map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => !unknown.has(id)).sort()).toEqual([...acknowledged, ...ours].sort());
      const acknowledgedSet = new Set(acknowledged);
      expect(ids.filter((id) => acknowledgedSet.has(id))).toEqual(acknowledged);
      expect(ids.filter((id) => id.startsWith("B-"))).toEqual(ours);
      expect((await runChild("read-thread.ts", [directory, "t"])).split("\n").filter(Boolean)).toEqual(ids);
      expect((await thread.messages()).map((message) => message.id)).toEqual(ids);
      // The store goes on: an append after all of it lands at the end, for every reader.
      await (await reader.get("t")).append({ id: "last", role: "user", text: "after" });
      expect((await thread.messages()).map((message) => message.id)).toEqual([...ids, "last"]);
      await Promise.all([store.close(), reader.close()]);
    },
    300_000,
  );

  it("leaves a stopped writer that rewrites the record its lock: LockTimeoutError, then consistent", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory, staleLockMs: STALE_MS, lockTimeoutMs: 1000 });
    const thread = await store.create({ id: "t" });
    const lockPath = new StoreLayout(directory).threadLockPath("t");
    const child = startChild("takeover-appender.ts", [directory, "t", "A", String(STALE_MS), "update"]);
    const output = collectOutput(child);
    try {
      await printed(output, "ready");
      await stopWhileHolding(child, lockPath, "record");
      const error = await thread
        .append({ id: "blocked", role: "user", text: "blocked" })
        .catch((caught: unknown) => caught);
      expect(LockTimeoutError.isInstance(error)).toBe(true);
      expect((error as LockTimeoutError).holder?.pid).toBe(child.pid);
      const settled = output.stdout().split("\n").length;
      child.kill("SIGCONT");
      await until(() => output.stdout().split("\n").length > settled + 3, "the writer to go on");
      await stopWriter(child, output);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT");
        child.kill("SIGKILL");
      }
    }
    const updates = idsOf(output.stdout(), "ack");
    expect(idsOf(output.stdout(), "lost")).toEqual([]);
    const reader = fsStore({ directory });
    const again = await reader.get("t");
    expect(again.metadata).toEqual({ writer: "A", last: updates.at(-1) });
    expect(await again.messages()).toEqual([]);
    await again.append({ id: "after", role: "user", text: "after" });
    expect((await thread.messages()).map((message) => message.id)).toEqual(["after"]);
    await Promise.all([store.close(), reader.close()]);
  }, 120_000);
});

describe("a sealed head (what a takeover leaves)", () => {
  async function sealedThread() {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    await thread.append([
      { id: "a", role: "user", text: "a" },
      { id: "b", role: "user", text: "b" },
    ]);
    await store.close();
    const driver = new FsLogDriver({ directory });
    const record = await driver.read("t");
    if (record?.kind !== "log") throw new Error("no log record");
    return { directory, driver, head: record.head, segment: driver.layout.segmentDirectory(record.head) };
  }

  /** What a writer stopped before the seal leaves when it resumes: an append past the sealed end. */
  async function lateAppend(driver: FsLogDriver, head: string): Promise<void> {
    const log = driver.log(head);
    const tail = await log.repair();
    await log.append(
      [
        {
          id: "late",
          role: "user",
          createdAt: new Date().toISOString(),
          contents: [{ type: "text", text: "late" }],
        },
      ],
      {
        revision: 99,
        committedAt: Date.now(),
        guarded: false,
      },
      tail,
    );
  }

  it("is read up to its sealed end, whatever was written past it", async () => {
    const { directory, driver, head, segment } = await sealedThread();
    claimSeal(segment);
    expect(publishSeal(segment, 2, driver.layout.temporary)).toBe(2);
    await lateAppend(driver, head);
    const store = fsStore({ directory });
    const thread = await store.get("t");
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b"]);
    await thread.append({ id: "c", role: "user", text: "c" });
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    const moved = await driver.read("t");
    expect(moved?.kind === "log" && moved.head).not.toBe(head);
    await Promise.all([store.close(), driver.close()]);
  });

  it("is finished by the next writer when its taker stopped after claiming it", async () => {
    const { directory, driver, head, segment } = await sealedThread();
    claimSeal(segment);
    const store = fsStore({ directory });
    const thread = await store.get("t");
    await thread.append({ id: "c", role: "user", text: "c" });
    expect(readFileSync(join(segment, "sealed-at"), "utf8")).toBe(JSON.stringify({ count: 2 }));
    await lateAppend(driver, head);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    const moved = await driver.read("t");
    if (moved?.kind !== "log") throw new Error("no log record");
    expect(await driver.segment(moved.head)).toMatchObject({ base: { segment: head, offset: 2 }, start: 2 });
    await Promise.all([store.close(), driver.close()]);
  });

  it("leaves handles that read the thread before the takeover appending to it as is, fenced and idempotent", async () => {
    const { directory, driver, segment } = await sealedThread();
    const store = fsStore({ directory });
    const before = await store.get("t");
    const retrying = await store.get("t");
    const revision = before.revision;
    // The takeover: its taker stopped after claiming the seal, and another store's reader finishes it.
    claimSeal(segment);
    const other = fsStore({ directory });
    expect((await (await other.get("t")).messages()).map((message) => message.id)).toEqual(["a", "b"]);
    // Planned on the old head, fenced on the revision read: nothing readers see changed, so it goes in.
    await before.append({ id: "c", role: "user", text: "c" }, { ifRevision: revision });
    // A retry, planned on the old head, of an append already below the sealed end is not written twice.
    await retrying.append({ id: "b", role: "user", text: "b" });
    expect((await (await other.get("t")).messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    await Promise.all([store.close(), other.close(), driver.close()]);
  });

  it("is finished by a reader when its taker stopped after claiming it", async () => {
    const { directory, driver, head, segment } = await sealedThread();
    claimSeal(segment);
    const store = fsStore({ directory });
    expect((await (await store.get("t")).messages()).map((message) => message.id)).toEqual(["a", "b"]);
    await lateAppend(driver, head);
    expect((await (await store.get("t")).messages()).map((message) => message.id)).toEqual(["a", "b"]);
    await Promise.all([store.close(), driver.close()]);
  });
});

describe("an appender whose lock was taken over before it read the thread's record", () => {
  it("writes nothing and fails with LockLostError", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    await (await store.create({ id: "t" })).append({ id: "a", role: "user", text: "a" });
    const driver = new FsLogDriver({ directory });
    const record = await driver.read("t");
    if (record?.kind !== "log") throw new Error("no log record");
    const lockPath = driver.layout.threadLockPath("t");
    const error = await driver.locks
      .withLock(
        lockPath,
        async (lease) => {
          // Another writer took the lock over (in one rename, as a takeover does) while this one was stopped.
          writeFileSync(
            `${lockPath}.other`,
            JSON.stringify({ pid: process.pid, nonce: "other", writes: "record" }),
          );
          renameSync(`${lockPath}.other`, lockPath);
          const message = {
            id: "b",
            role: "user" as const,
            createdAt: new Date().toISOString(),
            contents: [],
          };
          return commitChange(driver, "t", { expectHead: record.head, append: [message] }, lease);
        },
        { writes: "segment" },
      )
      .catch((caught: unknown) => caught);
    expect(LockLostError.isInstance(error)).toBe(true);
    expect((await driver.log(record.head).tail()).count).toBe(1);
    await rm(lockPath);
    expect((await (await store.get("t")).messages()).map((message) => message.id)).toEqual(["a"]);
    await Promise.all([store.close(), driver.close()]);
  });
});

describe("releasing an appender's lock", () => {
  it("waits while a breaker judges it, so the breaker never replaces a lock created after it", async () => {
    const directory = await temporaryDirectory();
    const driver = new FsLogDriver({ directory });
    const path = join(directory, "t.lock");
    const breaker = `${path}.break`;
    let released = false;
    const done = driver.locks
      .withLock(
        path,
        async () => {
          // A live process (this one) holds `.break`: it is judging this lock right now.
          writeFileSync(
            breaker,
            JSON.stringify({ pid: process.pid, hostname: hostname(), nonce: "breaker" }),
          );
        },
        { writes: "segment" },
      )
      .then(() => {
        released = true;
      });
    await sleep(50);
    expect(released).toBe(false);
    expect(existsSync(path)).toBe(true);
    rmSync(breaker);
    await done;
    expect(existsSync(path)).toBe(false);
    await driver.close();
  });
});

describe("an appender that finds its head sealed once its commit is written", () => {
  /** Starts a commit of message `id` under a "segment" lock; the seal is claimed right after its first check. */
  async function sealedDuringCommit(id: string, lockTimeoutMs = 10_000) {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    await (await store.create({ id: "t" })).append({ id: "a", role: "user", text: "a" });
    await store.close();
    const driver = new FsLogDriver({ directory, lockTimeoutMs });
    const record = await driver.read("t");
    if (record?.kind !== "log") throw new Error("no log record");
    const segment = driver.layout.segmentDirectory(record.head);
    const message = { id, role: "user" as const, createdAt: new Date().toISOString(), contents: [] };
    const committing = driver.locks.withLock(
      driver.layout.threadLockPath("t"),
      async (lease) => {
        const commit = commitChange(driver, "t", { expectHead: record.head, append: [message] }, lease);
        // The commit checked the seal before its first pause: a takeover claims it from here on.
        claimSeal(segment);
        return commit;
      },
      { writes: "segment" },
    );
    return { directory, driver, segment, committing: committing.catch((error: unknown) => error) };
  }

  async function readIds(directory: string): Promise<string[]> {
    const store = fsStore({ directory });
    const ids = (await (await store.get("t")).messages()).map((message) => message.id);
    await store.close();
    return ids;
  }

  it("counts when it ends before the sealed end", async () => {
    const { directory, driver, segment, committing } = await sealedDuringCommit("b");
    setTimeout(() => publishSeal(segment, 2, driver.layout.temporary), 20);
    const result = await committing;
    expect(result).toMatchObject({ messages: [{ id: "b" }] });
    expect(await readIds(directory)).toEqual(["a", "b"]);
    await driver.close();
  });

  it("fails with LockLostError, and is not read, when it ends past the sealed end", async () => {
    const { directory, driver, segment, committing } = await sealedDuringCommit("b");
    setTimeout(() => publishSeal(segment, 1, driver.layout.temporary), 20);
    expect(LockLostError.isInstance(await committing)).toBe(true);
    expect(await readIds(directory)).toEqual(["a"]);
    await driver.close();
  });

  it("fails with LockOutcomeUnknownError when the sealed end is not published within lockTimeoutMs", async () => {
    const { directory, driver, committing } = await sealedDuringCommit("b", 200);
    expect(LockOutcomeUnknownError.isInstance(await committing)).toBe(true);
    // The next reader finishes the takeover: the append is there or not, never half.
    expect(["a,b", "a"]).toContain((await readIds(directory)).join(","));
    await driver.close();
  });
});

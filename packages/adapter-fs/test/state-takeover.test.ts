import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { FsLogDriver, LockLostError } from "../src/index.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";
import { isStopped, lockNow, seededRandom, stopWhileHolding, until } from "./stopped-writers.js";

/** Low, so that a stopped owner's lock goes stale quickly; far below the waiters' lockTimeoutMs. */
const STALE_MS = 150;
/** How many times the state writer is stopped while it holds its lock and taken over. */
const TAKEOVERS = 30;
const random = seededRandom("state-takeover");
/** Stops the writer at random moments until a stop lands while it holds the lock declaring `"state"`. */
const stopWhileSaving = (child: ChildProcess, lockPath: string) =>
  stopWhileHolding(child, lockPath, "state", random, { minGapMs: 0, gapMs: 6, attempts: 400 });

/** The lines of `stdout` after the first `skip`. */
function linesAfter(stdout: string, skip: number): string[] {
  return stdout.split("\n").filter(Boolean).slice(skip);
}

/** What lock holdings left in the locks directory: staging directories, tombstones, revoked directories. */
function stagingLeftovers(lockPath: string): string[] {
  return readdirSync(dirname(lockPath)).filter(
    (name) => name.endsWith(".staging") || name.endsWith(".revoked") || name.endsWith(".tmp"),
  );
}

function killed(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
}

describe("taking over the lock of a state writer that stopped running (SIGSTOP)", () => {
  it("lets another writer save after staleLockMs; the stopped writer's late save never lands", async () => {
    const directory = await temporaryDirectory();
    // A takeover that did not happen would leave B's save waiting 10 s, then LockTimeoutError.
    const driver = new FsLogDriver({ directory, staleLockMs: STALE_MS, lockTimeoutMs: 10_000 });
    await driver.putState("lease", { writer: "B", index: -1 });
    const lockPath = driver.layout.threadLockPath("lease");
    const child = startChild("state-saver.ts", [directory, "lease", "A", String(STALE_MS), "loop"]);
    const output = collectOutput(child);
    const outcomes = { lost: 0, conflict: 0 };
    try {
      await printed(output, "ready");
      await until(() => output.stdout().includes("ack "), "the writer's first save");
      for (let trial = 0; trial < TAKEOVERS; trial++) {
        await stopWhileSaving(child, lockPath);
        // Read while the writer is stopped: its pending rename, if any, cannot land any more.
        const before = await driver.read("lease");
        const revision = before?.revision ?? 0;
        const saved = await driver.putState("lease", { writer: "B", trial }, { ifRevision: revision });
        expect(saved.revision).toBe(revision + 1);
        const settled = output.stdout().split("\n").filter(Boolean).length;
        child.kill("SIGCONT");
        // The writer's outcomes from here: a save that landed before it stopped may be acknowledged now
        // (B read it); then its save in flight is fenced off (lost) or, if it had renamed before it stopped,
        // its next save is refused by the revision check (conflict). Never an acknowledged save after B's.
        const outcome = () =>
          linesAfter(output.stdout(), settled).filter((line) => line !== `ack ${revision}`);
        await until(() => outcome().length > 0, "the writer's next outcome");
        const [next] = outcome();
        expect(next).toMatch(/^(lost|conflict) /);
        outcomes[(next as string).startsWith("lost") ? "lost" : "conflict"]++;
        // Waiting now: B's state stands.
        const after = await driver.read("lease");
        expect(after).toMatchObject({ kind: "state", revision: revision + 1, state: { writer: "B", trial } });
        child.stdin?.write("go\n");
        await until(
          () => linesAfter(output.stdout(), settled).some((line) => line.startsWith(`ack ${revision + 2}`)),
          "the writer to save again",
        );
      }
      child.stdin?.write("stop\n");
      await printed(output, "done");
      expect(await exited(child)).toBe(0);
    } finally {
      killed(child);
    }
    console.log(
      `state-takeover: ${TAKEOVERS} takeovers, ${outcomes.lost} lost, ${outcomes.conflict} conflicts`,
    );
    expect(outcomes.lost + outcomes.conflict).toBe(TAKEOVERS);
    // Every holding ended: no staging directory and no tombstone is left.
    expect(stagingLeftovers(lockPath)).toEqual([]);
    const reader = new FsLogDriver({ directory });
    expect(await reader.read("lease")).toMatchObject({ kind: "state", state: { writer: "A" } });
    await Promise.all([driver.close(), reader.close()]);
  }, 300_000);

  it.each([
    ["stop-before-save", "save"],
    ["stop-before-delete", "delete"],
  ])(
    "fences off a writer stopped right before its rename (%s)",
    async (mode, operation) => {
      const directory = await temporaryDirectory();
      const driver = new FsLogDriver({ directory, staleLockMs: STALE_MS, lockTimeoutMs: 10_000 });
      await driver.putState("lease", { writer: "first" });
      const lockPath = driver.layout.threadLockPath("lease");
      const child = startChild("state-saver.ts", [directory, "lease", "A", String(STALE_MS), mode, "1"]);
      const output = collectOutput(child);
      try {
        await printed(output, "stopping");
        await until(() => isStopped(child.pid as number), "the writer to stop");
        expect(lockNow(lockPath)).toMatchObject({ pid: child.pid, writes: "state" });
        const saved = await driver.putState("lease", { writer: "B" }, { ifRevision: 1 });
        expect(saved.revision).toBe(2);
        child.kill("SIGCONT");
        await printed(output, "done");
        expect(await exited(child)).toBe(0);
      } finally {
        killed(child);
      }
      expect(linesAfter(output.stdout(), 1)).toEqual([`lost ${operation}`, "done"]);
      expect(await driver.read("lease")).toMatchObject({ revision: 2, state: { writer: "B" } });
      expect(stagingLeftovers(lockPath)).toEqual([]);
      await driver.close();
    },
    120_000,
  );
});

describe("a state writer's lock taken over", () => {
  it("says fencing while its taker holds it, so a taker that dies before its sweep is replaced, never removed", async () => {
    const directory = await temporaryDirectory();
    const driver = new FsLogDriver({ directory, staleLockMs: STALE_MS, lockTimeoutMs: 10_000 });
    await driver.putState("lease", { writer: "first" });
    const lockPath = driver.layout.threadLockPath("lease");
    const child = startChild("state-saver.ts", [
      directory,
      "lease",
      "A",
      String(STALE_MS),
      "stop-before-save",
      "1",
    ]);
    const output = collectOutput(child);
    try {
      await printed(output, "stopping");
      await until(() => isStopped(child.pid as number), "the writer to stop");
      const taken = await driver.locks.withLock(lockPath, async () => lockNow(lockPath), {
        writes: "state",
      });
      expect(taken).toMatchObject({ pid: process.pid, writes: "state", fencing: true });
      child.kill("SIGCONT");
      await printed(output, "done");
      expect(await exited(child)).toBe(0);
    } finally {
      killed(child);
    }
    expect(linesAfter(output.stdout(), 1)).toEqual(["lost save", "done"]);
    await driver.close();
  }, 120_000);
});

describe("a state writer's lock", () => {
  it.each(["before", "after"])(
    "is declared 'state', and a save under it whose lock was replaced and staging path revoked (%s the holder made it) fails with LockLostError",
    async (when) => {
      const directory = await temporaryDirectory();
      const driver = new FsLogDriver({ directory });
      await driver.putState("doc", { version: 1 });
      const lockPath = driver.layout.threadLockPath("doc");
      const error = await driver.locks
        .withLock(
          lockPath,
          async (lease) => {
            expect(lease.writes).toBe("state");
            expect(lockNow(lockPath)?.writes).toBe("state");
            if (when === "after") lease.staging.directory("save");
            // What a takeover does: replaces the lock, then revokes this holding's staging path. "before":
            // the holder makes its directory only afterwards, and must find its lock lost then.
            // (In one rename over the lock path, as a breaker does: the holder's own file stays its own.)
            writeFileSync(
              `${lockPath}.replacement`,
              JSON.stringify({ pid: process.pid, nonce: "f".repeat(24), writes: "state" }),
            );
            renameSync(`${lockPath}.replacement`, lockPath);
            const { revokeStaging } = await import("../src/locks/staging-area.js");
            revokeStaging(lease.staging.path);
            const { putStateRecord } = await import("../src/records/put-state.js");
            return putStateRecord(driver, "doc", { version: 2 }, {}, lease);
          },
          { writes: "state" },
        )
        .catch((caught: unknown) => caught);
      expect(LockLostError.isInstance(error)).toBe(true);
      expect((error as LockLostError).operation).toBe("save");
      expect(await driver.read("doc")).toMatchObject({ revision: 1, state: { version: 1 } });
      // Nothing of the holding is left at its staging path: no directory, no tombstone.
      expect(stagingLeftovers(lockPath)).toEqual([]);
      await driver.close();
    },
  );
});

describe("staging leftovers", () => {
  it("are swept when a process first takes a state lock: tombstones of gone owners, staging directories and staged files of ended holdings", async () => {
    const directory = await temporaryDirectory();
    const setup = new FsLogDriver({ directory });
    await setup.putState("doc", { version: 1 });
    await setup.close();
    const locks = join(directory, "locks");
    const nonce = (letter: string) => letter.repeat(24);
    const stat = readFileSync("/proc/self/stat", "utf8");
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const owner = { pid: process.pid, hostname: hostname() };
    // A tombstone whose owner is gone (this pid, another start time: a reused pid) and one whose owner lives.
    writeFileSync(join(locks, `gone.lock.${nonce("a")}.staging`), JSON.stringify({ ...owner, started: "1" }));
    writeFileSync(join(locks, `live.lock.${nonce("b")}.staging`), JSON.stringify({ ...owner, started }));
    // A staging directory whose lock is gone (its holder ended), and one whose lock is still held under it.
    mkdirSync(join(locks, `ended.lock.${nonce("c")}.staging`));
    writeFileSync(join(locks, `ended.lock.${nonce("c")}.staging`, "x.tmp"), "left");
    mkdirSync(join(locks, `held.lock.${nonce("d")}.staging`));
    writeFileSync(join(locks, "held.lock"), JSON.stringify({ ...owner, started, nonce: nonce("d") }));
    // Staged files: one of an ended holding (its lock gone), one of a holding its lock was taken from
    // (held under another nonce now), one of the holding that holds its lock.
    writeFileSync(join(locks, `ended.lock.${nonce("c")}.0.tmp`), "left");
    writeFileSync(join(locks, `held.lock.${nonce("e")}.1f.tmp`), "fenced");
    writeFileSync(join(locks, `held.lock.${nonce("d")}.0.tmp`), "staged");
    const driver = new FsLogDriver({ directory });
    await driver.putState("doc", { version: 2 }, { ifRevision: 1 });
    expect(readdirSync(locks).sort()).toEqual(
      [
        "held.lock",
        `held.lock.${nonce("d")}.staging`,
        `held.lock.${nonce("d")}.0.tmp`,
        `live.lock.${nonce("b")}.staging`,
      ].sort(),
    );
    await driver.close();
  });
});

describe("releasing a lock", () => {
  it.each(["state", "segment", "record", "references"] as const)(
    "never removes it without .break: behind another live releaser's .break that stays, it waits (bounded) and leaves the lock to go stale (a %s lock)",
    async (writes) => {
      const directory = await temporaryDirectory();
      const driver = new FsLogDriver({ directory, lockTimeoutMs: 300 });
      const path = join(directory, "t.lock");
      const breaker = `${path}.break`;
      await driver.locks.withLock(
        path,
        async () => {
          // A live process (this one) stopped in its own release of this lock path, holding `.break`.
          writeFileSync(
            breaker,
            JSON.stringify({ pid: process.pid, hostname: hostname(), nonce: "r", writes }),
          );
        },
        { writes },
      );
      // Left, to go stale and be taken over: removed without `.break`, a releaser stopped between its check
      // and its unlink could remove, once that `.break` is gone, the lock a breaker gave a third process.
      expect(existsSync(path)).toBe(true);
      expect(existsSync(breaker)).toBe(true);
      await driver.close();
    },
  );
});

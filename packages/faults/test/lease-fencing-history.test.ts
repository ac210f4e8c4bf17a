import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FsLogDriver, fsStore, LockTimeoutError } from "@skein/adapter-fs";
import { messageText, type ThreadRunner } from "@skein/thread-core";
import { createThreadService } from "@skein/thread-service";
import { describe, expect, it } from "vitest";
import { encodeName } from "../../adapter-fs/src/records/file-names.js";
import { fileStore } from "./support/backends.js";
import { exited, printed, startChild, until } from "./support/child-processes.js";

// Issue 18, point 1: a leased run's checkpoint and fork carry the fence's `ifRevision` like its appends. As in
// lease-fencing.test.ts, "has that write refused by the store's own revision check …": the test holds the
// thread's lock, so instance A's checkpoint (or the commit that checks a fork's revision), past every lease
// check A makes, waits inside the store; A is frozen, the lock let go, B takes the lease and answers, and A
// resumes. Only the store's revision check can refuse it then: with the lease checks alone, A's checkpoint
// lands after B's turn and its fork is made.

/** Renewed every third of it: long enough that A is rarely frozen in the middle of a renewal (see below). */
const LEASE_MS = 1500;
/** Tries of a round in which A was frozen holding its lease document's lock, which leaves nothing to test. */
const ATTEMPTS = 5;

const answering: ThreadRunner = {
  specificationVersion: "v1",
  supports: () => true,
  run: (thread) => thread.append({ role: "assistant", text: "B-answer" }),
};

/** Whether the process is stopped (SIGSTOP); where there is no /proc, the signal is trusted to have landed. */
function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
  } catch {
    return true;
  }
}

/** Whether `error`, or an error it was caused by, is an fs lock that stayed held. */
function isLockTimeout(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (LockTimeoutError.isInstance(current)) return true;
  }
  return false;
}

/**
 * One round on a new thread. Returns false, having checked nothing, when B's send found A frozen holding its
 * lease document's lock (A was renewing): then B could not take the lease.
 */
async function round(url: string, directory: string, operation: "checkpoint" | "fork"): Promise<boolean> {
  const store = fsStore({ directory, lockTimeoutMs: 1000 });
  const service = createThreadService({
    store,
    runner: answering,
    leaseMs: LEASE_MS,
    pollMs: 5,
    instanceId: "B",
  });
  const { threadId } = await service.createThread();
  const stale = startChild("stale-lease-worker.ts", [
    url,
    threadId,
    String(LEASE_MS),
    `wait-on-lock-${operation}`,
  ]);
  const pid = stale.process.pid as number;
  const locks = new FsLogDriver({ directory }).locks;
  try {
    await printed(stale, "ready-to-write");
    // Held here, so A's write, past its lease check, waits inside the store's commit.
    await locks.withLock(join(directory, "locks", `${encodeName(threadId)}.lock`), async () => {
      stale.process.stdin?.write("go\n");
      await printed(stale, "appending");
      stale.process.kill("SIGSTOP");
      await until(() => isStopped(pid), "the stale instance to stop", 90_000, stale);
    });
    const blocked = await service.send(threadId, "B-question").then(
      () => false,
      (error: unknown) => {
        if (!isLockTimeout(error)) throw error;
        return true;
      },
    );
    if (blocked) return false;
    const afterB = await store.get(threadId);
    const historyAfterB = await afterB.history();
    stale.process.kill("SIGCONT");
    expect(await exited(stale.process), stale.output.stderr()).toBe(0);
    const report = JSON.parse(stale.output.lines().at(-1) as string) as {
      append: { status: string; error?: string; leaseLost?: boolean };
      send: { status: string; error?: string; leaseLost?: boolean };
    };
    const thread = await store.get(threadId);
    expect((await thread.messages()).map(messageText)).toEqual(["A-question", "B-question", "B-answer"]);
    expect(thread.revision).toBe(afterB.revision);
    expect(await thread.history()).toEqual(historyAfterB);
    expect((await store.list({ prefix: `${threadId}-A-fork` })).items).toEqual([]);
    expect(report.append).toEqual({ status: "refused", error: "LeaseLostError", leaseLost: true });
    expect(report.send).toEqual({ status: "refused", error: "LeaseLostError", leaseLost: true });
    return true;
  } finally {
    if (stale.process.exitCode === null && stale.process.signalCode === null) {
      stale.process.kill("SIGCONT");
      await exited(stale.process);
    }
    await service.close();
    await store.close();
  }
}

describe("fs: an instance frozen past its lease while its checkpoint or fork waits for the thread's lock", () => {
  for (const operation of ["checkpoint", "fork"] as const) {
    it(`has its ${operation} refused by the store's own revision check, after it passed its lease check`, async () => {
      const { url } = await fileStore(`lease-fencing-${operation}`);
      const directory = fileURLToPath(url);
      for (let attempt = 1; ; attempt++) {
        const tested = await round(url, directory, operation);
        if (tested) return;
        // A was frozen while it renewed its lease, holding that document's lock: B could not take the lease,
        // so A still held it when it resumed. Nothing was stale; try again.
        expect(attempt, "rounds in which A was frozen holding its lease's lock").toBeLessThan(ATTEMPTS);
      }
    });
  }
});

// A leased run's write that rewrites the record (a checkpoint, a rollback) frozen past its lease while it
// holds the thread's "record" lock, right before the record's rename: B's send takes that lock over after
// staleLockMs instead of failing with LockTimeoutError, and A's write, when it resumes, is fenced off by the
// takeover (its rename goes through the revoked staging directory): refused as LeaseLostError, and nothing
// of it lands.
describe("fs: an instance frozen past its lease while its checkpoint or rollback holds the thread's lock", () => {
  for (const operation of ["checkpoint", "rollback"] as const) {
    it(`has that lock taken over after staleLockMs, and its ${operation} refused as LeaseLostError`, async () => {
      const { url } = await fileStore(`lease-fencing-record-${operation}`);
      const directory = fileURLToPath(url);
      const store = fsStore({ directory, lockTimeoutMs: 10_000, staleLockMs: 200 });
      const service = createThreadService({
        store,
        runner: answering,
        leaseMs: LEASE_MS,
        pollMs: 5,
        instanceId: "B",
      });
      const { threadId } = await service.createThread();
      const stale = startChild("stale-lease-worker.ts", [
        url,
        threadId,
        String(LEASE_MS),
        `stop-in-${operation}`,
      ]);
      const pid = stale.process.pid as number;
      try {
        await printed(stale, "frozen");
        await until(() => isStopped(pid), "the stale instance to stop");
        const lock = JSON.parse(
          readFileSync(join(directory, "locks", `${encodeName(threadId)}.lock`), "utf8"),
        );
        expect(lock).toMatchObject({ pid, writes: "record" });
        // Not blocked by the frozen holder of the thread's lock (10 s, then LockTimeoutError, before).
        await service.send(threadId, "B-question");
        const afterB = await store.get(threadId);
        const historyAfterB = await afterB.history();
        stale.process.kill("SIGCONT");
        expect(await exited(stale.process), stale.output.stderr()).toBe(0);
        const report = JSON.parse(stale.output.lines().at(-1) as string) as {
          append: { status: string; error?: string; leaseLost?: boolean };
          send: { status: string; error?: string; leaseLost?: boolean };
        };
        expect(report.append).toEqual({ status: "refused", error: "LeaseLostError", leaseLost: true });
        const thread = await store.get(threadId);
        expect((await thread.messages()).map(messageText)).toEqual(["A-question", "B-question", "B-answer"]);
        expect(thread.revision).toBe(afterB.revision);
        expect(await thread.history()).toEqual(historyAfterB);
        expect(historyAfterB).toEqual([]);
      } finally {
        if (stale.process.exitCode === null && stale.process.signalCode === null) {
          stale.process.kill("SIGCONT");
          await exited(stale.process);
        }
        await service.close();
        await store.close();
      }
    });
  }
});

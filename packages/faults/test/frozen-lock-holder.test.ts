import { readFileSync, statSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { FsLogDriver, fsStore } from "@skein/adapter-fs";
import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
// Not exported: the fs store's file naming, read from its source as faults reads other internals.
import { encodeName } from "../../adapter-fs/src/records/file-names.js";
import { fileStore } from "./support/backends.js";
import { exited, printed, startChild, until } from "./support/child-processes.js";
import { chooseSeed, seededRandom } from "./support/seeded-random.js";

const seed = chooseSeed();
console.log(`frozen-lock-holder: FAULTS_SEED=${seed}`);
const random = seededRandom(seed);
/** Stops at random moments until one lands while the writer holds the thread's lock; most do. */
const MAX_STOPS = 40;

function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
  } catch {
    return true;
  }
}

async function lockOwner(path: string): Promise<number | undefined> {
  try {
    return (JSON.parse(await readFile(path, "utf8")) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

/** The ids a writer printed as acknowledged ("ack <id> <id>…"). */
function acknowledged(lines: string[]): string[] {
  return lines.filter((line) => line.startsWith("ack ")).flatMap((line) => line.slice(4).split(" "));
}

describe("fs: a writer frozen (SIGSTOP) while it holds a thread's lock", () => {
  it("loses its lock to a waiter after staleLockMs; its late append is refused, typed, and nothing is lost", async () => {
    const { url } = await fileStore("frozen-lock");
    const directory = fileURLToPath(url);
    const setup = await openStore(url);
    await setup.create({ id: "frozen" });
    await setup.close();
    const lockPath = join(directory, "locks", `${encodeName("frozen")}.lock`);
    const writer = startChild("crash-writer.ts", [url, "frozen", "A"]);
    const pid = writer.process.pid as number;
    // The other process's store takes over a lock unrefreshed for 100 ms from a live appender; if it did
    // not, its append would wait 10 s and fail with LockTimeoutError.
    const other = fsStore({ directory, lockTimeoutMs: 10_000, staleLockMs: 100 });
    try {
      await printed(writer, "ready");
      let caught = false;
      for (let stop = 0; stop < MAX_STOPS && !caught; stop++) {
        await sleep(1 + Math.floor(random() * 20));
        writer.process.kill("SIGSTOP");
        await until(() => isStopped(pid), "the writer to stop");
        // Holding the lock, and not releasing it (a few microseconds under `.break`, which blocks takeovers).
        caught = (await lockOwner(lockPath)) === pid && (await lockOwner(`${lockPath}.break`)) !== pid;
        if (!caught) writer.process.kill("SIGCONT");
      }
      expect(caught, `none of ${MAX_STOPS} stops landed while the writer held the lock`).toBe(true);
      // The writer only appends: its lock is taken over, and its head segment sealed, so that its writes,
      // positioned in the thread's files, cannot land over ours when it resumes.
      const thread = await other.get("frozen");
      await thread.append({ id: "B-took-over", role: "user", text: "took the lock over" });
      const acknowledgedBefore = acknowledged(writer.output.lines());
      writer.process.kill("SIGCONT");
      // The append it was in either counts (it ended before the seal) or fails with LockLostError, which
      // this writer does not catch: it exits. Either way it never answers for an append that is not there.
      await until(
        () =>
          acknowledged(writer.output.lines()).length > acknowledgedBefore.length + 3 ||
          writer.process.exitCode !== null,
        "the writer to go on or stop",
      );
      if (writer.process.exitCode !== null) {
        expect(writer.output.stderr()).toMatch(/LockLostError|Lost the lock/);
      }
      writer.process.kill("SIGKILL");
      await exited(writer.process);
      // A killed owner's lock is taken over at once.
      await thread.append({ id: "B-after", role: "user", text: "after the writer died" });
      const ids = (await (await other.get("frozen")).messages()).map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toContain("B-took-over");
      expect(ids.at(-1)).toBe("B-after");
      const acked = acknowledged(writer.output.lines());
      const written = ids.filter((id) => id.startsWith("A-"));
      // Every acknowledged append is there, in order; past them at most the append the kill interrupted.
      expect(written.slice(0, acked.length)).toEqual(acked);
      expect(written.length - acked.length).toBeLessThanOrEqual(3);
    } finally {
      if (writer.process.exitCode === null && writer.process.signalCode === null) {
        writer.process.kill("SIGCONT");
        writer.process.kill("SIGKILL");
      }
      await other.close();
    }
  });

  it("refreshes a lock while its owner holds it, so only an owner that stopped running looks stale", async () => {
    // Where the owner cannot be checked (another host), a lock is judged by how long it went unrefreshed.
    const directory = fileURLToPath((await fileStore("refresh")).url);
    const driver = new FsLogDriver({ directory, staleLockMs: 40 });
    await mkdir(directory, { recursive: true });
    const path = join(directory, "held.lock");
    await driver.locks.withLock(path, async () => {
      const first = (await stat(path)).mtimeMs;
      await until(() => {
        try {
          return statSync(path).mtimeMs > first;
        } catch {
          return false;
        }
      }, "the owner to refresh its lock");
    });
    await driver.close();
  });

  it("takes over at once a lock whose pid now belongs to another process (a reused pid)", async () => {
    const { url } = await fileStore("reused-pid");
    const directory = fileURLToPath(url);
    // Waits past its timeout for a live owner, and only takes over locks unrefreshed for 30 s by age.
    const store = fsStore({ directory, lockTimeoutMs: 400, staleLockMs: 30_000 });
    try {
      const thread = await store.create({ id: "reused" });
      await mkdir(join(directory, "locks"), { recursive: true });
      // This process's pid, but a start time it does not have: the owner that wrote it is gone.
      const lock = { pid: process.pid, hostname: hostname(), nonce: "gone", acquiredAt: "", started: "1" };
      await writeFile(join(directory, "locks", `${encodeName("reused")}.lock`), JSON.stringify(lock));
      await thread.append({ id: "after", role: "user", text: "the lock's owner is gone" });
      expect((await thread.messages()).map((message) => message.id)).toEqual(["after"]);
    } finally {
      await store.close();
    }
  });
});

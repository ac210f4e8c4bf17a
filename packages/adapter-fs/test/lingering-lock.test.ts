import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { LockFiles } from "../src/locks/lock-file.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { collectOutput, exited, printed, runChild, startChild } from "./child-process.js";
import { isStopped, until } from "./stopped-writers.js";

const say = (id: string) => ({ id, role: "user" as const, text: id });
const ids = (messages: Array<{ id: string }>) => messages.map((message) => message.id);

/** The nonce of the lock file at `path`: which holding of the lock it is. */
function nonceOf(path: string): string {
  return (JSON.parse(readFileSync(path, "utf8")) as { nonce: string }).nonce;
}

/** The end of this turn of the event loop: its check phase, where a kept lock is released. */
const turnEnds = () => new Promise((resolve) => setImmediate(resolve));

describe("a plain append's lock, kept for the next append to the thread (linger)", () => {
  it("is taken once for back-to-back appends, and released in the event loop's check phase", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    const layout = new StoreLayout(directory);
    const lockPath = layout.threadLockPath("t");
    await thread.append(say("a"));
    const kept = nonceOf(lockPath);
    await thread.append(say("b"));
    await thread.append(say("c"));
    expect(nonceOf(lockPath)).toBe(kept);
    await turnEnds();
    expect(readdirSync(layout.locks)).toEqual([]);
    expect(ids(await thread.messages())).toEqual(["a", "b", "c"]);
    await store.close();
  });

  it("is given up, not reused, once another process asked for it (.wanted)", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t" });
    const lockPath = new StoreLayout(directory).threadLockPath("t");
    await thread.append(say("a"));
    const kept = nonceOf(lockPath);
    writeFileSync(`${lockPath}.wanted`, "");
    await thread.append(say("b"));
    expect(nonceOf(lockPath)).not.toBe(kept);
    await store.close();
  });

  it("is released for another store of the same process, which takes the lock at once", async () => {
    const directory = await temporaryDirectory();
    const first = fsStore({ directory });
    // Waiting on a lock kept by the first store would end in LockTimeoutError.
    const second = fsStore({ directory, lockTimeoutMs: 2_000 });
    const thread = await first.create({ id: "t" });
    await thread.append(say("a"));
    await (await second.get("t")).append(say("b"));
    expect(ids(await thread.messages())).toEqual(["a", "b"]);
    await Promise.all([first.close(), second.close()]);
  });

  it("is released when its LockFiles closes", async () => {
    const directory = await temporaryDirectory();
    const path = join(directory, "t.lock");
    const locks = new LockFiles({ timeoutMs: 5_000, staleMs: 5_000 });
    await locks.withLock(path, async () => undefined, { writes: "segment", linger: true });
    expect(existsSync(path)).toBe(true);
    await locks.close();
    expect(readdirSync(directory)).toEqual([]);
  });

  it("is taken at once by another process from a holder stopped before its next append, which then waits its turn", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    await store.create({ id: "t" });
    await store.close();
    const child = startChild("append-and-stop.ts", [directory, "t"]);
    const output = collectOutput(child);
    try {
      await printed(output, "stopping");
      await until(() => isStopped(child.pid as number), "the child to stop");
      // Its lock is kept and never refreshed while it is stopped: waiting for it to go stale (60 s) would end
      // in LockTimeoutError after 30 s, however busy the machine.
      const other = fsStore({ directory, lockTimeoutMs: 30_000 });
      await (await other.get("t")).append(say("other"));
      child.kill("SIGCONT");
      await printed(output, "done");
      expect(await exited(child)).toBe(0);
      expect(ids(await (await other.get("t")).messages())).toEqual(["child-1", "other", "child-2"]);
      expect(readdirSync(new StoreLayout(directory).locks)).toEqual([]);
      await other.close();
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT");
        child.kill("SIGKILL");
      }
    }
  });

  it.each(["exit", "end"] as const)(
    "never keeps its process alive nor outlives it (a process that appends and leaves: %s)",
    async (leave) => {
      const directory = await temporaryDirectory();
      const store = fsStore({ directory });
      await store.create({ id: "t" });
      await store.close();
      expect(await runChild("append-and-leave.ts", [directory, "t", leave])).toBe("appended\n");
      expect(readdirSync(new StoreLayout(directory).locks)).toEqual([]);
    },
  );
  it("is released as usual when another process claimed its mark and died before removing it: no takeover", async () => {
    const directory = await temporaryDirectory();
    // A lock left in place would be taken over only after staleLockMs (sealing the head, making a new one).
    const store = fsStore({ directory, staleLockMs: 60_000, lockTimeoutMs: 120_000 });
    const thread = await store.create({ id: "t" });
    const layout = new StoreLayout(directory);
    const lockPath = layout.threadLockPath("t");
    await thread.append(say("a"));
    const segments = readdirSync(layout.segments);
    const mark = readdirSync(layout.locks).find((name) => name.endsWith(".kept"));
    expect(mark).toBeDefined();
    // The claim's first step, as another process makes it (`#claimKept`), which then dies.
    renameSync(join(layout.locks, mark as string), `${lockPath}.${"f".repeat(24)}`);
    await thread.append(say("b"));
    expect(readdirSync(layout.segments)).toEqual(segments);
    expect(ids(await thread.messages())).toEqual(["a", "b"]);
    await store.close();
  });

  it("gives each answer metadata of its own, though the record is carried from append to append", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    const thread = await store.create({ id: "t", metadata: { a: 1 } });
    await thread.append(say("a"));
    const given = thread.metadata as Record<string, unknown>;
    await thread.append(say("b"));
    expect(thread.metadata).not.toBe(given);
    // A caller changing what it was given (read-only only in the types) changes no later answer.
    given.a = 2;
    await thread.append(say("c"));
    expect(thread.metadata).toEqual({ a: 1 });
    await store.close();
  });
});

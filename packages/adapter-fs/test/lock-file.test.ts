import { spawnSync } from "node:child_process";
import { readdir, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { SkeinError, StoreUnavailableError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsStore, LockTimeoutError } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid as number;
}

async function lockThread(directory: string, threadId: string, content: string, ageMs = 0): Promise<string> {
  const path = new StoreLayout(directory).threadLockPath(threadId);
  await writeFile(path, content);
  const time = new Date(Date.now() - ageMs);
  await utimes(path, time, time);
  return path;
}

const holder = (pid: number) =>
  JSON.stringify({ pid, hostname: hostname(), nonce: "someone-else", acquiredAt: "" });

describe("thread locks", () => {
  it("takes over a lock whose owner process is gone", async () => {
    const directory = await temporaryDirectory();
    // Far beyond the test's own timeout: an append that waited for the lock instead of taking it over
    // would fail the test, however fast or busy the machine.
    const store = fsStore({ directory, lockTimeoutMs: 600_000 });
    const thread = await store.create({ id: "t" });
    await lockThread(directory, "t", holder(deadPid()));
    await thread.append({ role: "user", text: "after the owner died" });
    expect(await readdir(new StoreLayout(directory).locks)).toEqual([]);
    await store.close();
  });

  it("waits for a live owner, then fails with a typed, retryable error", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory, lockTimeoutMs: 150 });
    const thread = await store.create({ id: "t" });
    const path = await lockThread(directory, "t", holder(process.pid));
    const error = await thread.append({ role: "user", text: "blocked" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(SkeinError.isInstance(error)).toBe(true);
    expect((error as LockTimeoutError).message).toMatch(
      /^\[adapter-fs\] Gave up after \d+ ms waiting for the lock/,
    );
    expect((error as LockTimeoutError).holder?.pid).toBe(process.pid);
    expect((error as LockTimeoutError).lockPath).toBe(path);
    expect(await thread.messages()).toEqual([]);
    await store.close();
  });

  it("takes over a lock older than staleLockMs even if its pid is alive (a reused pid)", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory, staleLockMs: 1000, lockTimeoutMs: 2000 });
    const thread = await store.create({ id: "t" });
    await lockThread(directory, "t", holder(process.pid), 5000);
    await thread.append({ role: "user", text: "took it over" });
    expect(await thread.messages()).toHaveLength(1);
    await store.close();
  });

  it("treats an empty lock file as being written, and as abandoned once it is old", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory, lockTimeoutMs: 150 });
    const thread = await store.create({ id: "t" });
    const path = await lockThread(directory, "t", "");
    await expect(thread.append({ role: "user", text: "waits" })).rejects.toBeInstanceOf(LockTimeoutError);
    const old = new Date(Date.now() - 5000);
    await utimes(path, old, old);
    await thread.append({ role: "user", text: "goes" });
    expect(await thread.messages()).toHaveLength(1);
    await store.close();
  });

  it("serializes two stores on one directory inside one process", async () => {
    const directory = await temporaryDirectory();
    const [first, second] = [fsStore({ directory }), fsStore({ directory })];
    await first.create({ id: "t" });
    const handles = await Promise.all([first.get("t"), second.get("t")]);
    await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        handles[index % 2]?.append({ id: `m${index}`, role: "user", text: `${index}` }),
      ),
    );
    const ids = (await handles[0]?.messages())?.map((message) => message.id);
    expect(new Set(ids).size).toBe(100);
    expect((await handles[1]?.messages())?.map((message) => message.id)).toEqual(ids);
    await Promise.all([first.close(), second.close()]);
  });
});

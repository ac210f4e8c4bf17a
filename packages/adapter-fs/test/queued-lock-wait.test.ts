import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { FsLogDriver, LockTimeoutError } from "../src/index.js";

// Writers of one thread in one process wait in line for its lock instead of polling the lock file: that
// wait is bounded by lockTimeoutMs as well, so no call waits without a bound.
describe("a write queued in this process behind another of the same lock", () => {
  it("gives up with LockTimeoutError after lockTimeoutMs, and the lock works once the first lets go", async () => {
    const directory = await temporaryDirectory();
    const locks = new FsLogDriver({ directory, lockTimeoutMs: 200 }).locks;
    await mkdir(join(directory, "locks"), { recursive: true });
    const path = join(directory, "locks", "t.lock");
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const first = locks.withLock(path, async () => {
      entered();
      await held;
      return "first";
    });
    await inside;
    const queued = await locks.withLock(path, async () => "queued").catch((error: unknown) => error);
    expect(LockTimeoutError.isInstance(queued)).toBe(true);
    expect((queued as LockTimeoutError).holder?.pid).toBe(process.pid);
    release();
    expect(await first).toBe("first");
    expect(await locks.withLock(path, async () => "after")).toBe("after");
  });
});

import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { FsLogDriver, LockLostError } from "../src/index.js";
import { sweepStaging } from "../src/locks/staging-area.js";

describe("a staged file its holder made before its lock was taken over", () => {
  it("is unlinked by the taker's sweep, so the holder's rename of it fails with LockLostError and nothing lands", async () => {
    const directory = await temporaryDirectory();
    const driver = new FsLogDriver({ directory });
    await driver.putState("doc", { version: 1 });
    const lockPath = driver.layout.threadLockPath("doc");
    const recordPath = driver.layout.recordPath("doc");
    const error = await driver.locks
      .withLock(
        lockPath,
        async (lease) => {
          // The holder stages its save while the lock is its own (its check passes)...
          const current = driver.records.readNow("doc");
          const text = `${JSON.stringify({ ...current, revision: 2, state: { version: 2 } })}\n`;
          const staged = lease.staging.stage("save", recordPath, text);
          // ...then stops; a taker replaces the lock in one rename and sweeps the directory.
          writeFileSync(
            `${lockPath}.replacement`,
            JSON.stringify({ pid: process.pid, nonce: "f".repeat(24), writes: "state" }),
          );
          renameSync(`${lockPath}.replacement`, lockPath);
          await sweepStaging(dirname(lockPath), async () => false);
          // The holder resumes with its rename.
          return lease.staging.guard("save", () => driver.files.flushAndReplace(staged));
        },
        { writes: "state" },
      )
      .catch((caught: unknown) => caught);
    expect(LockLostError.isInstance(error)).toBe(true);
    expect((error as LockLostError).operation).toBe("save");
    expect(await driver.read("doc")).toMatchObject({ revision: 1, state: { version: 1 } });
    expect(readdirSync(dirname(lockPath)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    await driver.close();
  });
});

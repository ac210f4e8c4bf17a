import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readdir, rm, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { LockFiles } from "../src/locks/lock-file.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";
import { isStopped, until } from "./stopped-writers.js";

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid as number;
}

describe("lock files are created whole (issue 18)", () => {
  it("never takes a lock from a creator stopped between making its lock file and filling it", async () => {
    const directory = await temporaryDirectory();
    const lockPath = join(directory, "t.lock");
    const child = startChild("lock-creator.ts", [lockPath]);
    const output = collectOutput(child);
    await printed(output, "stopping");
    await until(() => isStopped(child.pid as number), "the creator to stop");
    const locks = new LockFiles({ timeoutMs: 60_000, staleMs: 5_000 });
    let heldMeanwhile = false;
    await locks.withLock(
      lockPath,
      async () => {
        child.kill("SIGCONT");
        // The creator goes on: it either believes it holds the lock too (an empty lock file removed as
        // abandoned while it lived), or finds the lock taken and asks for it (`.wanted`).
        await until(
          () => output.stdout().includes("held") || existsSync(`${lockPath}.wanted`),
          "the creator to go on",
        );
        heldMeanwhile = output.stdout().includes("held");
      },
      { writes: "segment" },
    );
    expect(heldMeanwhile).toBe(false);
    await printed(output, "released");
    expect(await exited(child)).toBe(0);
    expect(await readdir(directory)).not.toContain("t.lock");
  });

  it("lets a creator whose unlinked file was removed while it was stopped write it again", async () => {
    const directory = await temporaryDirectory();
    const lockPath = join(directory, "t.lock");
    const child = startChild("lock-creator.ts", [lockPath]);
    const output = collectOutput(child);
    await printed(output, "stopping");
    await until(() => isStopped(child.pid as number), "the creator to stop");
    // As a sweep that judged it gone (another host, long stopped) would.
    const unlinked = (await readdir(directory)).filter((name) => name.startsWith("t.lock."));
    expect(unlinked).toHaveLength(1);
    await rm(join(directory, unlinked[0] as string));
    child.kill("SIGCONT");
    await printed(output, "released");
    expect(await exited(child)).toBe(0);
    expect(await readdir(directory)).toEqual([]);
  });

  it.each(["state", "segment", "record", "references"] as const)(
    "removes a gone releaser's .break at its own release, and then its lock (a %s lock)",
    async (writes) => {
      const directory = await temporaryDirectory();
      const path = join(directory, "t.lock");
      const breaker = `${path}.break`;
      const locks = new LockFiles({ timeoutMs: 5_000, staleMs: 5_000 });
      await locks.withLock(
        path,
        async () => {
          // A releaser of this lock path that died holding `.break` (its lock file, linked there).
          await writeFile(
            breaker,
            JSON.stringify({ pid: deadPid(), hostname: hostname(), nonce: "r", writes }),
          );
        },
        { writes },
      );
      // Left behind for good before: every release skipped it, and no one removed it.
      expect(existsSync(breaker)).toBe(false);
      expect(existsSync(path)).toBe(false);
    },
  );

  it("sweeps the unlinked lock files of owners that are gone, and keeps those of live ones", async () => {
    const directory = await temporaryDirectory();
    const owner = (pid: number) => JSON.stringify({ pid, hostname: hostname(), nonce: "x", started: "1" });
    const unlinked = (letter: string, suffix = "") => `t.lock${suffix}.${letter.repeat(24)}`;
    const old = new Date(Date.now() - 600_000);
    // Left by a creator and a breaker that died before linking: their owner is gone.
    await writeFile(join(directory, unlinked("a")), owner(deadPid()));
    await writeFile(join(directory, unlinked("b", ".break")), owner(deadPid()));
    // A live owner's (this process, with no start time to tell a reused pid: kept until very old).
    await writeFile(
      join(directory, unlinked("c")),
      JSON.stringify({ pid: process.pid, hostname: hostname() }),
    );
    // A live owner that can be checked (this process and its start time): never judged by age, since a
    // holder keeps this name while it holds a lock, refreshed by its own staleLockMs.
    const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const live = JSON.stringify({ pid: process.pid, hostname: hostname(), nonce: "y", started });
    await writeFile(join(directory, unlinked("f")), live);
    await utimes(join(directory, unlinked("f")), old, old);
    // Never written: by age alone, far past staleMs, or being written now.
    await writeFile(join(directory, unlinked("d")), "");
    await utimes(join(directory, unlinked("d")), old, old);
    await writeFile(join(directory, unlinked("e")), "");
    const locks = new LockFiles({ timeoutMs: 5_000, staleMs: 1_000 });
    await locks.withLock(join(directory, "other.lock"), async () => undefined);
    expect((await readdir(directory)).sort()).toEqual([unlinked("c"), unlinked("e"), unlinked("f")]);
  });

  it("sweeps a lock directory again, long after its first sweep: peers keep dying while a server runs", async () => {
    const directory = await temporaryDirectory();
    // staleMs 10: swept again 60 × 10 ms after the last sweep (5 minutes with the default 5 s).
    const locks = new LockFiles({ timeoutMs: 5_000, staleMs: 10 });
    await locks.withLock(join(directory, "t.lock"), async () => undefined);
    const left = join(directory, `t.lock.${"a".repeat(24)}`);
    await writeFile(left, JSON.stringify({ pid: deadPid(), hostname: hostname(), nonce: "x", started: "1" }));
    // Before the fix a process swept each directory once in its life: the file stayed however long it ran.
    const deadline = Date.now() + 60_000;
    while (existsSync(left) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await locks.withLock(join(directory, "t.lock"), async () => undefined);
    }
    expect(existsSync(left)).toBe(false);
  });
});

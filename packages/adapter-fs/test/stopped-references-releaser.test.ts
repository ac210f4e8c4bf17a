import { existsSync } from "node:fs";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore, LockTimeoutError } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";
import { isStopped, until } from "./stopped-writers.js";

describe("a writer stopped while it releases the references lock (under references.lock.break)", () => {
  it("blocks others' releases only until it resumes: the store then goes on, no lock left behind", async () => {
    const directory = await temporaryDirectory();
    // A short lockTimeoutMs: the release below waits that long for the stopped writer's `.break`.
    const store = fsStore({ directory, lockTimeoutMs: 1_000, staleLockMs: 500 });
    const thread = await store.create({ id: "t" });
    await thread.append({ role: "user", text: "first" });
    const layout = new StoreLayout(directory);
    const child = startChild("references-releaser.ts", [directory, "t"]);
    const output = collectOutput(child);
    try {
      await printed(output, "stopping");
      await until(() => isStopped(child.pid as number), "the writer to stop");
      expect(existsSync(`${layout.referencesLock}.break`)).toBe(true);
      expect(existsSync(layout.referencesLock)).toBe(false);
      // Takes the references lock at once (it is free); its release cannot take `.break` while the writer
      // is stopped, and gives up after lockTimeoutMs, the fork itself done.
      const during = await thread.fork();
      expect(await during.messages()).toHaveLength(1);
      child.kill("SIGCONT");
      await printed(output, "done");
      expect(await exited(child)).toBe(0);
      // Once the writer went on, the references lock is free again: this fork takes it. It failed with
      // LockTimeoutError when the release above left its lock in place for good (a live owner's
      // references lock, never taken over), blocking every later fork, rollback and delete.
      const after = await thread.fork().catch((error: unknown) => error);
      expect(LockTimeoutError.isInstance(after), String(after)).toBe(false);
      await until(() => !existsSync(layout.referencesLock), "the references lock to be released");
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT");
        child.kill("SIGKILL");
      }
    }
    await store.close();
  });
});

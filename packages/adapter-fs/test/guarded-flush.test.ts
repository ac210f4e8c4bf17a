import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed } from "./child-process.js";

/** strace can hold a system call; without it (or without ptrace) this test is skipped. */
const strace = spawnSync("strace", ["-qq", "-e", "trace=none", "true"]).status === 0;
const SEEDED = 5;
const ENTRY_SIZE = 40;

async function sizeOf(path: string): Promise<number> {
  return (await stat(path)).size;
}

describe("an encrypted append (a guarded commit: it counts once the record confirms it)", () => {
  it.skipIf(!strace)(
    "writes its index entries while its lines are still being flushed, and a kill then leaves the thread as it was",
    async () => {
      const directory = join(await temporaryDirectory(), "store");
      const key = randomBytes(32);
      const encryption = { keys: { k: key }, current: "k" };
      const store = fsStore({ directory, encryption });
      const thread = await store.create({ id: "guarded" });
      for (let index = 0; index < SEEDED; index++)
        await thread.append({ id: `seeded-${index}`, role: "user", text: `seeded ${index}` });
      await store.close();
      const [segment] = await readdir(join(directory, "segments"));
      const log = join(directory, "segments", segment as string, "messages.jsonl");
      const index = join(directory, "segments", segment as string, "index.bin");
      expect(await sizeOf(index)).toBe(SEEDED * ENTRY_SIZE);

      // The writer's flush of the log is held for a minute: the entries are written meanwhile or not at all.
      const writer = spawn(
        "strace",
        [
          "-f",
          "-qq",
          "-P",
          log,
          "-e",
          "trace=fdatasync,fsync",
          "-e",
          "inject=fdatasync,fsync:delay_enter=60000000",
          process.execPath,
          "--import",
          "tsx",
          fileURLToPath(new URL("./children/encrypted-append-writer.ts", import.meta.url)),
          directory,
          "guarded",
          "w",
          "1",
        ],
        {
          cwd: fileURLToPath(new URL("../", import.meta.url)),
          stdio: ["pipe", "pipe", "pipe"],
          env: { ...process.env, SKEIN_TEST_KEYS: `k=${key.toString("hex")}` },
        },
      );
      const output = collectOutput(writer);
      try {
        await printed(output, "ready");
        writer.stdin?.write("go\n");
        const deadline = Date.now() + 30_000;
        while ((await sizeOf(index)) === SEEDED * ENTRY_SIZE && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        // Before, the entries waited for the lines' flush: two flush rounds where one will do.
        expect(await sizeOf(index)).toBe((SEEDED + 1) * ENTRY_SIZE);
      } finally {
        // The traced Node.js process, then strace: killed at the held flush, before the record names the commit.
        const traced = spawnSync("pgrep", ["-P", String(writer.pid)], { encoding: "utf8" }).stdout;
        for (const pid of traced.split("\n").filter(Boolean)) process.kill(Number(pid), "SIGKILL");
        writer.kill("SIGKILL");
        await exited(writer);
      }
      expect(output.stdout()).not.toContain("w-00000");

      // Its entries are there but unconfirmed: the thread reads as it was, and takes the next append.
      const reopened = fsStore({ directory, encryption });
      const again = await reopened.get("guarded");
      const seeded = Array.from({ length: SEEDED }, (_, position) => `seeded-${position}`);
      expect((await again.messages()).map((message) => message.id)).toEqual(seeded);
      await again.append({ id: "after-the-kill", role: "user", text: "after the kill" });
      const final = await (await reopened.get("guarded")).messages();
      expect(final.map((message) => message.id)).toEqual([...seeded, "after-the-kill"]);
      await reopened.close();
    },
  );
});

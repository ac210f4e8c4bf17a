import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { LogThread } from "@skein/thread-core";
import { type FollowEvent, type LocalStore, STREAMS_KEY } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

const LEASE_MS = 2_000;

describe("a reply streamed by another process", () => {
  it("is followed live, and when its writer is SIGKILLed ends interrupted on the next read with every flushed delta", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const store = fsStore({ directory });
    const thread = (await store.create()) as LogThread;
    await thread.append({ role: "user", text: "tell me a long story" });
    const child = startChild("reply-streamer.ts", [directory, thread.id, String(LEASE_MS)]);
    const output = collectOutput(child);
    try {
      await printed(output, "flushed 0");
      const messageId = (/begun (\S+)/.exec(output.stdout()) as RegExpExecArray)[1] as string;
      // Followed from here, in this process: deltas arrive as the child flushes them.
      const deltas: string[] = [];
      let end: FollowEvent | undefined;
      let killedAt = -1;
      for await (const event of thread.follow(messageId, { pollMs: 1_000 })) {
        if (event.type === "end") {
          end = event;
          break;
        }
        expect(event.offset).toBe(deltas.length);
        deltas.push(event.delta.type === "text" ? String(event.delta.text) : "?");
        if (deltas.length === 20 && killedAt < 0) {
          child.kill("SIGKILL");
          await exited(child);
          killedAt = deltas.length;
        }
      }
      expect(killedAt).toBe(20);
      // Every delta the child reported flushed before it died is in the ended message, in order.
      const reported = output.stdout().match(/flushed \d+/g)?.length ?? 0;
      const message = end?.type === "end" ? end.message : undefined;
      expect(message?.status).toBe("interrupted");
      const text = message?.contents.map((content) => (content.type === "text" ? content.text : "")).join("");
      const expected = Array.from({ length: reported }, (_, n) => `d${n} `).join("");
      expect(text?.startsWith(expected)).toBe(true);
      expect(text?.startsWith(deltas.join(""))).toBe(true);

      // Another process's view (a fresh store on the directory) reads the same ended message.
      const other = fsStore({ directory });
      const [, stored] = await ((await other.get(thread.id)) as LogThread).messages();
      expect(stored).toEqual(message);
      await other.close();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await store.close();
    }
  }, 120_000);

  it("ends interrupted on a plain read once the lease of a killed writer lapses", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const store = fsStore({ directory });
    const thread = (await store.create()) as LogThread;
    const child = startChild("reply-streamer.ts", [directory, thread.id, String(LEASE_MS)]);
    const output = collectOutput(child);
    try {
      await printed(output, "flushed 9");
      child.kill("SIGKILL");
      await exited(child);
      const reported = output.stdout().match(/flushed \d+/g)?.length ?? 0;
      const [streaming] = await thread.messages();
      expect(streaming?.status).toBe("streaming");
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
      const [ended] = await thread.messages();
      expect(ended?.status).toBe("interrupted");
      const text = ended?.contents.map((content) => (content.type === "text" ? content.text : "")).join("");
      expect(text?.startsWith(Array.from({ length: reported }, (_, n) => `d${n} `).join(""))).toBe(true);
      expect(thread.length).toBe(1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await store.close();
    }
  }, 120_000);

  it("wakes a watcher of the reply's segment in this process when the other process flushes", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const store = fsStore({ directory });
    const thread = (await store.create()) as LogThread;
    const child = startChild("reply-streamer.ts", [directory, thread.id, String(LEASE_MS)]);
    const output = collectOutput(child);
    try {
      await printed(output, "flushed 0");
      await thread.refresh();
      const [entry] = thread.record.context[STREAMS_KEY] as Array<{ segment: string }>;
      const driver = (store as unknown as LocalStore).driver;
      // Resolves on the first change the kernel reports; the test's timeout is the failure.
      const woken = await new Promise<boolean>((resolve) => {
        const stop = driver.watch?.(entry?.segment as string, () => {
          void stop?.();
          resolve(true);
        });
        if (!stop) resolve(false);
      });
      expect(woken).toBe(true);
    } finally {
      child.kill("SIGKILL");
      await exited(child);
      await store.close();
    }
  }, 120_000);
});

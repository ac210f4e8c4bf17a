import { readdirSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { LogThread } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { cutShortAtRemoval } from "./cut-short.js";

/**
 * Runs `task` with the first release of a thread's reference to a segment (the `rm` of
 * `segments/<id>/refs/thread.<name>`) failing, as if the process died there: inside a delete, after the
 * thread's record was removed and before its segments were released. Gives what the task threw.
 */
function cutShortAtRelease(task: () => Promise<unknown>): Promise<unknown> {
  return cutShortAtRemoval(
    /[/\\]refs[/\\]thread\.[^/\\]+$/,
    "cut short between the record's removal and the segments' release",
    task,
  );
}

const list = (directory: string) => readdirSync(directory).sort();

describe("a delete cut short between its record's removal and its segments' release", () => {
  it("leaves a pending delete that the next delete of the id finishes: segments and staged record gone", async () => {
    const directory = await temporaryDirectory("pending-delete");
    const store = fsStore({ directory });
    try {
      const thread = await store.create({ id: "gone", metadata: { note: "private" } });
      await thread.append({ id: "a", role: "user", text: "hi" });
      await thread.rollback(await thread.checkpoint("start"));
      expect(await cutShortAtRelease(() => store.delete("gone"))).toBeInstanceOf(Error);
      expect(list(join(directory, "deletes"))).toHaveLength(1);
      expect(list(join(directory, "segments")).length).toBeGreaterThan(0);

      expect(await store.delete("gone")).toBe(false);
      expect(list(join(directory, "deletes"))).toEqual([]);
      expect(list(join(directory, "segments"))).toEqual([]);
      expect(list(join(directory, "locks")).filter((name) => name.endsWith(".staging"))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("is finished without taking what a thread made under the same id since needs (an import of its export)", async () => {
    const directory = await temporaryDirectory("pending-delete-reused");
    const store = fsStore({ directory });
    try {
      const thread = await store.create({ id: "again" });
      await thread.append({ id: "a", role: "user", text: "question" });
      const start = await thread.checkpoint("start");
      await thread.rollback(start);
      await thread.append([
        { id: "b", role: "assistant", text: "answer" },
        { id: "c", role: "user", text: "thanks" },
      ]);
      const side = await thread.checkpoint("side");
      // Back to the start: the head that holds b and c is now kept only by the thread's own reference.
      await thread.rollback(start);
      const exported = await store.export("again");
      await cutShortAtRelease(() => store.delete("again"));
      // Made anew from its export: the same segments, whose `refs/thread.again` the pending delete names.
      await store.import(exported);
      expect(list(join(directory, "deletes")), "pending before the sweep").toHaveLength(1);
      // A sweep's scan finishes every pending delete first.
      await store.sweep();
      expect(list(join(directory, "deletes"))).toEqual([]);
      const made = await store.get("again");
      expect((await made.messages()).map((message) => message.id)).toEqual(["a"]);
      expect((await (await made.at(side)).messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
      expect(await store.delete("again")).toBe(true);
      expect(list(join(directory, "segments"))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("is finished beside a live writer whose reply segment nothing references yet, which it never reclaims", async () => {
    const directory = await temporaryDirectory("pending-delete-live-writer");
    const store = fsStore({ directory });
    try {
      const live = (await store.create({ id: "live" })) as LogThread;
      await live.append({ id: "q", role: "user", text: "question" });
      // Its batches go to a segment of their own that no record or segment references until it lands. Each
      // write is its batch (`maxBatchBytes: 1`): the segment is there before `before` is listed, not on a timer.
      const reply = await live.beginMessage({ role: "assistant", maxBatchBytes: 1 });
      await reply.write("first half, ");
      const doomed = await store.create({ id: "doomed" });
      await doomed.append({ id: "d", role: "user", text: "doomed" });
      const before = list(join(directory, "segments"));
      await cutShortAtRelease(() => store.delete("doomed"));

      await store.sweep();
      expect(list(join(directory, "deletes"))).toEqual([]);
      // Only the doomed thread's segment went.
      expect(list(join(directory, "segments"))).toHaveLength(before.length - 1);
      await reply.write("second half");
      await reply.end();
      const messages = await live.messages();
      expect(messages.map((message) => message.contents)).toEqual([
        [{ type: "text", text: "question" }],
        [{ type: "text", text: "first half, second half" }],
      ]);
    } finally {
      await store.close();
    }
  });
});

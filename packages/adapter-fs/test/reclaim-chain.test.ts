import { readdirSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { cutShortAtRemoval } from "./cut-short.js";

/**
 * Runs `task` with the first removal of a segment's reference to its base (`segments/<base>/refs/segment.<id>`)
 * failing, as if the process died there: inside a delete that reclaims a segment continuing another one.
 * Gives what the task threw.
 */
function cutShortAtBaseRelease(task: () => Promise<unknown>): Promise<unknown> {
  return cutShortAtRemoval(
    /[/\\]refs[/\\]segment\.[^/\\]+$/,
    "cut short while a reclaimed segment's base was released",
    task,
  );
}

describe("a delete cut short inside the reclaim of a segment that continues another", () => {
  it("leaves what the next delete of the id walks down again: no segment is left behind", async () => {
    const directory = await temporaryDirectory("reclaim-chain");
    const store = fsStore({ directory });
    try {
      // A rollback then an append: the head is a segment continuing the first one (its base).
      const thread = await store.create({ id: "chained" });
      await thread.append({ id: "a", role: "user", text: "first" });
      const start = await thread.checkpoint("start");
      await thread.append({ id: "b", role: "assistant", text: "second" });
      await thread.rollback(start);
      await thread.append({ id: "c", role: "user", text: "third" });
      expect(readdirSync(join(directory, "segments")).length).toBe(2);

      expect(await cutShortAtBaseRelease(() => store.delete("chained"))).toBeInstanceOf(Error);
      expect(await store.delete("chained")).toBe(false);
      expect(readdirSync(join(directory, "deletes"))).toEqual([]);
      expect(readdirSync(join(directory, "segments"))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

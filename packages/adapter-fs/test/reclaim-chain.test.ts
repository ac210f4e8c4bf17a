import { readdirSync } from "node:fs";
import fsPromises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";

/**
 * Runs `task` with the first removal of a segment's reference to its base (`segments/<base>/refs/segment.<id>`)
 * failing, as if the process died there: inside a delete that reclaims a segment continuing another one.
 * Gives what the task threw.
 */
async function cutShortAtBaseRelease(task: () => Promise<unknown>): Promise<unknown> {
  const remove = fsPromises.rm;
  let failed = false;
  fsPromises.rm = async (path, options) => {
    if (!failed && /[/\\]refs[/\\]segment\.[^/\\]+$/.test(String(path))) {
      failed = true;
      throw new Error("cut short while a reclaimed segment's base was released");
    }
    return remove(path, options);
  };
  syncBuiltinESMExports();
  try {
    return await task().then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    fsPromises.rm = remove;
    syncBuiltinESMExports();
  }
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

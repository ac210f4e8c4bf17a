import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { branchingRows, editedThread } from "../src/branching-scenario.js";
import { fsFactory, memoryFactory } from "../src/fresh-stores.js";
import { filledThread } from "../src/scaling.js";

const SIZES = { small: 4, large: 40, edits: 5 };

describe("the branching rows (issue 38)", () => {
  it("make a thread whose last answer has the versions asked for, the newest current", async () => {
    const store = await openStore("memory:");
    const thread = await filledThread(store, 4);
    const edited = await editedThread(thread as Parameters<typeof editedThread>[0], 5);
    const [last] = await thread.messages({ last: 1 });
    expect(last?.id).toBe(edited.current);
    const versions = (await thread.alternatives?.(edited.current)) ?? [];
    expect(versions).toHaveLength(6);
    expect(versions.filter((version) => version.current).map((version) => version.id)).toEqual([
      edited.current,
    ]);
    expect(versions[versions.length - 2]?.id).toBe(edited.previous);
    expect(await thread.messages()).toHaveLength(4);
  });

  for (const factory of [memoryFactory(3), fsFactory(3)]) {
    it(`give edit, regenerate, switchTo and alternatives on three threads of ${factory.name}`, async () => {
      const rows = await branchingRows(factory, SIZES);
      expect(rows.map((row) => row.operation)).toEqual([
        "edit",
        "regenerate",
        "switchTo",
        "alternatives",
        "alternatives of a message never edited",
      ]);
      for (const row of rows) {
        expect(row.store).toBe(factory.name);
        expect(row.micros).toHaveLength(3);
        expect(row.micros.every((micros) => micros > 0)).toBe(true);
      }
      // Six versions to start with; each timed (and warm-up) edit and regenerate adds one, switchTo none.
      const versions = rows.map((row) => Number.parseInt(row.note ?? "", 10));
      expect(versions[0]).toBeGreaterThan(6);
      expect(versions[1]).toBeGreaterThan(versions[0] as number);
      expect(versions.slice(2)).toEqual([versions[1], versions[1], versions[1]]);
    });
  }
});

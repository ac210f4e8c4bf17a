import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { placeOf } from "../src/catalogue/catalogue-place.js";
import { type FsLogDriver, fsStore } from "../src/index.js";
import { expectExactListings } from "./catalogue-listings.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

/** Rounds of a writer killed at a random moment. */
const ROUNDS = 12;

describe("the catalogue through crashes", () => {
  it(`lists exactly the threads left after ${ROUNDS} writers killed in the middle of changes`, async () => {
    const directory = join(await temporaryDirectory(), "store");
    // Open across the rounds: its catalogue in memory catches up from the journal after each kill.
    const survivor = fsStore({ directory });
    await survivor.list({});
    for (let round = 0; round < ROUNDS; round++) {
      const writer = startChild("catalogue-writer.ts", [directory, `r${round % 3}`, "forever"]);
      const output = collectOutput(writer);
      await printed(output, "ready");
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 250));
      writer.kill("SIGKILL");
      await exited(writer);
      // A process opened after the kill, and the one that stayed open.
      const reopened = fsStore({ directory });
      await expectExactListings(reopened);
      await reopened.close();
      await expectExactListings(survivor);
    }
    await survivor.close();
  }, 300_000);

  it("lists exactly when changes were announced and never landed (writers killed between the two)", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const writer = fsStore({ directory });
    for (let index = 0; index < 6; index++) {
      const thread = await writer.create({ id: `u-${index}`, owner: "u" });
      await new Promise((resolve) => setTimeout(resolve, 3));
      if (index % 2 === 0) await thread.append({ role: "user", text: "hi" });
    }
    await writer.create({ id: "v-0", owner: "v" });
    // What a writer killed right after its journal line leaves: the line, and no change. Each of these
    // names a place the thread never reached (a later time, another owner, no record, a new thread).
    const driver = writer.driver as FsLogDriver;
    const placeNow = async (id: string) =>
      placeOf((await driver.read(id)) as NonNullable<Awaited<ReturnType<FsLogDriver["read"]>>>);
    const later = new Date(Date.now() + 60_000).toISOString();
    const appended = await placeNow("u-1");
    driver.listIndex.announce("u-1", { ...appended, updated: later }, appended);
    const moved = await placeNow("u-2");
    driver.listIndex.announce("u-2", { ...moved, owner: "v", updated: later }, moved);
    driver.listIndex.announce("u-3", null, await placeNow("u-3"));
    driver.listIndex.announce("ghost", { owner: "u", created: later, updated: later }, null);
    await writer.close();
    for (let round = 0; round < 2; round++) {
      // The first store builds the catalogue from the records and the lines; the second loads its snapshot.
      const reader = fsStore({ directory });
      await expectExactListings(reader);
      expect(await reader.count({ owner: "u" })).toBe(6);
      expect(await reader.count({ owner: "v" })).toBe(1);
      await reader.close();
    }
  });
});

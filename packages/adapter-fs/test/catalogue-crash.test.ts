import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, it } from "vitest";
import { fsStore } from "../src/index.js";
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
});

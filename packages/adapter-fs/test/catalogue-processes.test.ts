import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { expectExactListings, walk } from "./catalogue-listings.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

describe("the catalogue with several processes", () => {
  it("lists exactly what two writing processes left, read while they write and after", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const reader = fsStore({ directory });
    await reader.list({ owner: "u" }); // this process's catalogue, kept up to date from the journal
    const writers = ["a", "b"].map((name) => startChild("catalogue-writer.ts", [directory, name, "150"]));
    const outputs = writers.map((writer) => collectOutput(writer));
    await Promise.all(outputs.map((output) => printed(output, "ready")));
    // While they write: every page walk lists each thread at most once.
    const running = Promise.all(writers.map((writer) => exited(writer)));
    let done = false;
    void running.then(() => {
      done = true;
    });
    while (!done) {
      for (const order of ["updated", "created"] as const) {
        const ids = await walk(reader, { owner: "u", order });
        expect(new Set(ids).size).toBe(ids.length);
      }
      // A listing may run without touching the thread pool: let the children's exits be seen.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await running, outputs.map((output) => output.stderr()).join("\n")).toEqual([0, 0]);
    await expectExactListings(reader);
    const fresh = fsStore({ directory });
    await expectExactListings(fresh);
    await Promise.all([reader.close(), fresh.close()]);
  }, 240_000);
});

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

const ROUNDS = 10;

describe("forks, checkpoints and rollbacks killed at random moments", () => {
  it(`leave every thread readable and every acknowledged fork whole through ${ROUNDS * 2} SIGKILLs`, async () => {
    const directory = join(await temporaryDirectory(), "store");
    const creator = fsStore({ directory });
    await (await creator.create({ id: "origin" })).append({ id: "first", role: "user", text: "0" });
    await creator.close();
    const forks: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Two writers at once, so kills also land while one waits for the other's locks.
      const writers = [0, 1].map((slot) =>
        startChild("history-writer.ts", [directory, "origin", `r${round}w${slot}`]),
      );
      const outputs = writers.map((writer) => collectOutput(writer));
      await Promise.all(outputs.map((output) => printed(output, "ready")));
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
      for (const writer of writers) writer.kill("SIGKILL");
      await Promise.all(writers.map((writer) => exited(writer)));
      for (const output of outputs) {
        const lines = output.stdout().split("\n").slice(0, -1);
        forks.push(...lines.filter((line) => line.startsWith("fork ")).map((line) => line.slice(5)));
      }

      const reader = fsStore({ directory });
      // Every thread the store lists opens and reads back, its history included.
      const listed = (await reader.list({ limit: 1000 })).items.map((item) => item.id);
      for (const id of listed) {
        const thread = await reader.get(id);
        await thread.messages();
        await thread.history();
      }
      // Every acknowledged fork is there, with the messages the origin had (it always has one at least).
      for (const id of forks) {
        expect(listed).toContain(id);
        expect((await (await reader.get(id)).messages()).length).toBeGreaterThan(0);
      }
      // Every segment directory with a description is whole; one without is a create cut short.
      for (const name of await readdir(join(directory, "segments"))) {
        const text = await readFile(join(directory, "segments", name, "segment.json"), "utf8").catch(
          () => undefined,
        );
        if (text !== undefined) expect(await reader.driver.segment(JSON.parse(text).id)).toBeDefined();
      }
      await reader.close();
    }
    // A new writer carries on after the last kill.
    const store = fsStore({ directory });
    const origin = await store.get("origin");
    await origin.append({ id: "after", role: "user", text: "after the kills" });
    await origin.fork({ id: "after-fork" });
    expect((await (await store.get("after-fork")).messages()).at(-1)?.id).toBe("after");
    await store.close();
    expect(forks.length).toBeGreaterThan(0);
    console.info(`${forks.length} acknowledged forks`);
  }, 600_000);
});

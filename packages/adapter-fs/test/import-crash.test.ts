import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { ThreadNotFoundError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { chainExport } from "./chain-export.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

const ROUNDS = 8;
/** Segments per imported chain: more than one batch (IMPORT_BATCH is 256), so kills land inside and between batches. */
const LENGTH = 300;

describe("batch import", () => {
  it(`leaves only whole segments and whole threads through ${ROUNDS} SIGKILLs during imports of long chains`, async () => {
    const directory = await temporaryDirectory();
    const imported: string[] = [];
    const killed: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const child = startChild("chain-importer.ts", [directory, String(LENGTH)]);
      const output = collectOutput(child);
      await printed(output, "ready");
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 3000));
      child.kill("SIGKILL");
      await exited(child);
      const lines = output.stdout().split("\n");
      imported.push(...lines.filter((line) => line.startsWith("imported ")).map((line) => line.slice(9)));
      // The import under way when the kill came: the next one the child would have reported.
      killed.push(`chain-${child.pid}-${lines.filter((line) => line.startsWith("imported ")).length}`);
    }
    const store = fsStore({ directory });
    // Every segment directory in place is whole: its description parses and names it.
    const segmentsDirectory = join(directory, "segments");
    for (const name of await readdir(segmentsDirectory)) {
      const info = JSON.parse(await readFile(join(segmentsDirectory, name, "segment.json"), "utf8"));
      expect(typeof info.id).toBe("string");
      expect(await store.driver.segment(info.id)).toMatchObject({ id: info.id });
    }
    // Every import that returned reads whole; one cut short is absent or whole, never partial.
    for (const id of imported) {
      const messages = await (await store.get(id)).messages();
      expect(messages.map((message) => message.id)).toEqual(
        Array.from({ length: LENGTH }, (_, index) => `${id}-m${index}`),
      );
    }
    const listed = (await store.list({ limit: 1000 })).items.map((item) => item.id);
    for (const id of imported) expect(listed).toContain(id);
    for (const id of listed) expect([...imported, ...killed]).toContain(id);
    // An import cut short by a kill runs again to the end over the segments it had placed (unless the kill
    // came after it wrote the thread, before it said so).
    for (const id of killed) {
      const thread = await store.get(id).catch(async (error: unknown) => {
        if (!ThreadNotFoundError.isInstance(error)) throw error;
        return store.import(chainExport(id, LENGTH));
      });
      expect((await thread.messages()).map((message) => message.id)).toEqual(
        Array.from({ length: LENGTH }, (_, index) => `${id}-m${index}`),
      );
    }
    await store.close();
    console.info(`${imported.length} imports returned, ${killed.length} killed during an import`);
  }, 300_000);
});

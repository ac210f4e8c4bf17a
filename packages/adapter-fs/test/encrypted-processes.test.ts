import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

const APPENDS = 60;

describe("an encrypted store written by two processes mid-rotation", () => {
  it("lands every append of a writer still on the old key and of one on the new key, each once, all readable", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const old = randomBytes(32);
    const current = randomBytes(32);
    const keys = { "2026-06": old, "2026-12": current };
    const store = fsStore({ directory, encryption: { keys, current: "2026-12" } });
    await store.create({ id: "shared" });
    // The first writer has not switched yet (it still writes with the old key), the second has.
    const environments = [
      `2026-06=${old.toString("hex")},2026-12=${current.toString("hex")}`,
      `2026-12=${current.toString("hex")},2026-06=${old.toString("hex")}`,
    ];
    const writers = environments.map((environment, writer) => {
      process.env.SKEIN_TEST_KEYS = environment;
      try {
        return startChild("encrypted-append-writer.ts", [directory, "shared", `w${writer}`, String(APPENDS)]);
      } finally {
        delete process.env.SKEIN_TEST_KEYS;
      }
    });
    const collected = writers.map((writer) => collectOutput(writer));
    await Promise.all(collected.map((output) => printed(output, "ready")));
    for (const writer of writers) writer.stdin?.write("go\n");
    expect(await Promise.all(writers.map((writer) => exited(writer)))).toEqual([0, 0]);

    const final = (await (await store.get("shared")).messages()).map((message) => message.id);
    expect(final).toHaveLength(2 * APPENDS);
    expect(new Set(final).size).toBe(2 * APPENDS);
    for (const [writer, output] of collected.entries()) {
      const acknowledged = output.stdout().trim().split("\n").slice(1);
      expect(final.filter((id) => id.startsWith(`w${writer}-`))).toEqual(acknowledged);
    }
    await store.close();
    // Both keys sealed messages: the files hold units of each.
    let stored = "";
    for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) stored += await readFile(join(entry.parentPath, entry.name), "utf8");
    }
    expect(stored).toContain('"key":"2026-06"');
    expect(stored).toContain('"key":"2026-12"');
    // A reader with only the old key meets the new key's units: a typed error naming the missing key.
    const oldOnly = fsStore({ directory, encryption: { keys: { "2026-06": old }, current: "2026-06" } });
    const error = await oldOnly
      .get("shared")
      .then((thread) => thread.messages())
      .catch((caught: unknown) => caught);
    expect(String(error)).toContain("2026-12");
    expect((error as { name?: string }).name).toBe("KeyNotFoundError");
    await oldOnly.close();
  }, 300_000);
});

import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

const WRITERS = 2;
const APPENDS = 120;
const OLD = "2026-06";
const NEW = "2026-12";

/** Every byte of every file under `directory`, as text. */
async function storedBytes(directory: string): Promise<string> {
  let stored = "";
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) stored += await readFile(join(entry.parentPath, entry.name), "latin1");
  }
  return stored;
}

describe("key rotation on a file store beside writers in other processes", () => {
  it(`loses none of ${WRITERS * APPENDS} appends made by 2 processes while rekey runs, then reads with the new key alone`, async () => {
    const directory = join(await temporaryDirectory(), "store");
    const old = randomBytes(32);
    const current = randomBytes(32);
    const seed = fsStore({ directory, encryption: { keys: { [OLD]: old }, current: OLD } });
    const thread = await seed.create({ id: "rotated", metadata: { topic: "rotation" } });
    await thread.append(
      Array.from({ length: 100 }, (_, index) => ({
        id: `seed-${index}`,
        role: "user" as const,
        text: `seed ${index}`,
      })),
    );
    await thread.checkpoint("seeded");
    await seed.close();

    // One writer still writes with the old key (not switched over yet), one with the new; both list both.
    const environments = [
      `${OLD}=${old.toString("hex")},${NEW}=${current.toString("hex")}`,
      `${NEW}=${current.toString("hex")},${OLD}=${old.toString("hex")}`,
    ];
    const writers = environments.map((environment, writer) => {
      process.env.SKEIN_TEST_KEYS = environment;
      try {
        return startChild("encrypted-append-writer.ts", [
          directory,
          "rotated",
          `w${writer}`,
          String(APPENDS),
        ]);
      } finally {
        delete process.env.SKEIN_TEST_KEYS;
      }
    });
    const collected = writers.map((writer) => collectOutput(writer));
    await Promise.all(collected.map((output) => printed(output, "ready")));
    const rekeying = fsStore({
      directory,
      encryption: { keys: { [OLD]: old, [NEW]: current }, current: NEW },
    });
    for (const writer of writers) writer.stdin?.write("go\n");
    let finished = false;
    const ended = Promise.all(writers.map((writer) => exited(writer))).finally(() => {
      finished = true;
    });
    let runs = 0;
    let rewritten = 0;
    while (!finished) {
      const report = await rekeying.rekey({ batchSize: 10 });
      rewritten += Object.values(report.rewritten).reduce((sum, count) => sum + count, 0);
      runs++;
    }
    expect(await ended).toEqual([0, 0]);
    // The writer on the old key has stopped: one more run moves what it wrote last.
    const last = await rekeying.rekey({ batchSize: 10 });
    await rekeying.close();
    expect(runs).toBeGreaterThan(0);
    expect(rewritten).toBeGreaterThan(0);
    expect(last.complete).toBe(true);
    expect(last.remaining).toEqual({});

    const reader = fsStore({ directory, encryption: { keys: { [NEW]: current }, current: NEW } });
    const stored = await reader.get("rotated");
    const ids = (await stored.messages()).map((message) => message.id);
    expect(ids).toHaveLength(100 + WRITERS * APPENDS);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [writer, output] of collected.entries()) {
      const acknowledged = output.stdout().trim().split("\n").slice(1);
      expect(acknowledged).toHaveLength(APPENDS);
      expect(ids.filter((id) => id.startsWith(`w${writer}-`))).toEqual(acknowledged);
    }
    expect(stored.metadata).toEqual({ topic: "rotation" });
    const checkpoints = (await stored.history()).flatMap((event) =>
      event.kind === "checkpoint" ? [event.checkpoint.label] : [],
    );
    expect(checkpoints).toEqual(["seeded"]);
    const again = await reader.rekey();
    expect(again.rewritten).toEqual({});
    await reader.close();
    // No unit under the old key is left anywhere in the store's files.
    const bytes = await storedBytes(directory);
    expect(bytes).toContain(`"key":"${NEW}"`);
    expect(bytes).not.toContain(`"key":"${OLD}"`);
  }, 300_000);
});

import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FsLogDriver } from "@skein/adapter-fs";
import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { collectOutput, exited } from "./support/child-processes.js";
import { expectSkeinBuilt, runSkein, SKEIN_BIN } from "./support/skein-binary.js";
import { temporaryDirectory } from "./support/temporary-directories.js";

/** strace stops a process at one exact system call; without it (or without ptrace) these tests are skipped. */
const strace = spawnSync("strace", ["-qq", "-e", "trace=none", "true"]).status === 0;

const OLD = "2026-06";
const NEW = "2026-12";
const THREADS = 4;
const MESSAGES = 30;
const RENAMES = "rename,renameat,renameat2";

/**
 * Where `skein rekey` is killed: at its `when`-th rename. It walks threads in id order, so it first rewrites
 * t0's record (one rename), then t0's head segment's first batch (`segment-swap.ts`): the mark, the log's
 * rename, the index's. So (1) before the record's rename; (2) the segment's copy written, before its mark;
 * (3) after the mark, before the log is swapped; (4) between the log's and the index's renames, the one
 * moment the two files do not go together. `state` is what the kill must have left in that segment, which
 * also proves the kill came where it was meant to.
 */
const points = [
  { when: 1, at: "at the record's rename", state: { mark: false, log: false, index: false } },
  {
    when: 2,
    at: "after writing a segment's copy, before its mark",
    state: { mark: false, log: true, index: true },
  },
  { when: 3, at: "after the mark, before the log's rename", state: { mark: true, log: true, index: true } },
  {
    when: 4,
    at: "between the log's and the index's renames",
    state: { mark: true, log: false, index: true },
  },
];

function keysFile(directory: string, name: string, keys: Record<string, Buffer>, current: string): string {
  const file = join(directory, name);
  const encoded = Object.fromEntries(Object.entries(keys).map(([id, key]) => [id, key.toString("base64")]));
  writeFileSync(file, JSON.stringify({ current, keys: encoded }), { mode: 0o600 });
  return file;
}

/** Every thread's messages and checkpoint labels, as a store with `keys` reads them. */
async function readAll(url: string, keys: Record<string, Buffer>, current: string) {
  const store = await openStore(url, { encryption: { keys, current } });
  try {
    const read: Record<string, unknown> = {};
    for (const id of [...Array.from({ length: THREADS }, (_, index) => `t${index}`), "t9-fork"]) {
      const thread = await store.get(id);
      read[id] = {
        messages: (await thread.messages()).map((message) => [message.id, message.contents]),
        labels: (await thread.history()).flatMap((event) =>
          event.kind === "checkpoint" ? [event.checkpoint.label] : [],
        ),
        metadata: thread.metadata,
      };
    }
    return read;
  } finally {
    await store.close();
  }
}

async function seed(url: string, old: Buffer): Promise<void> {
  const store = await openStore(url, { encryption: { keys: { [OLD]: old }, current: OLD } });
  try {
    for (let index = 0; index < THREADS; index++) {
      const thread = await store.create({ id: `t${index}`, metadata: { n: index } });
      await thread.append(
        Array.from({ length: MESSAGES }, (_, offset) => ({
          id: `m${offset}`,
          role: "user" as const,
          text: `thread ${index} says ${offset}`,
        })),
      );
      await thread.checkpoint(`cp-${index}`);
      // The fork shares the first thread's head segment: its reads go through the rewritten copy too.
      if (index === 0) await thread.fork({ id: "t9-fork", at: "m19" });
    }
  } finally {
    await store.close();
  }
}

/** Every byte of every file under `directory`, as text. */
async function storedBytes(directory: string): Promise<string> {
  let stored = "";
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) stored += await readFile(join(entry.parentPath, entry.name), "latin1");
  }
  return stored;
}

describe("fs: skein rekey killed with SIGKILL at a seeded point of a segment's swap", () => {
  for (const point of points) {
    it.skipIf(!strace)(
      `${point.at}: every thread reads the same at once, and a rerun finishes`,
      async () => {
        expectSkeinBuilt();
        const root = await temporaryDirectory("rekey-kills");
        const directory = join(root, "store");
        const url = pathToFileURL(directory).href;
        const old = randomBytes(32);
        const fresh = randomBytes(32);
        const rotated = keysFile(root, "rotated.json", { [OLD]: old, [NEW]: fresh }, NEW);
        await seed(url, old);
        const before = await readAll(url, { [OLD]: old }, OLD);

        const driver = new FsLogDriver({ directory });
        const stored = await driver.read("t0");
        await driver.close();
        if (stored?.kind !== "log") throw new Error("t0 is not a local thread");
        const segment = driver.layout.segmentDirectory(stored.head);
        const child = spawn(
          "strace",
          [
            "-f",
            "-qq",
            "-e",
            `trace=${RENAMES}`,
            "-e",
            `inject=${RENAMES}:signal=SIGKILL:when=${point.when}`,
            process.execPath,
            SKEIN_BIN,
            "rekey",
            "--store",
            url,
            "--keys-file",
            rotated,
            "--batch",
            "7",
          ],
          // strace counts a rename per thread: one thread-pool thread makes every rename the count's.
          { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, UV_THREADPOOL_SIZE: "1" } },
        );
        const output = collectOutput(child);
        await exited(child);
        // Killed where it was meant to be: what the swap left says which step it reached.
        const names = readdirSync(segment);
        expect(
          {
            mark: existsSync(join(segment, "rekey.json")),
            log: names.some((name) => /^rekey-[0-9a-f]+\.jsonl$/.test(name)),
            index: names.some((name) => /^rekey-[0-9a-f]+\.bin$/.test(name)),
          },
          output.stderr(),
        ).toEqual(point.state);

        // A writer appends before anyone else settles the segment (it settles it itself first); then readers
        // with the keys read everything as it was, and the append, before any rerun.
        const writer = await openStore(url, {
          encryption: { keys: { [OLD]: old, [NEW]: fresh }, current: NEW },
        });
        await (await writer.get("t0")).append({ id: "late", role: "user", text: "late" });
        await writer.close();
        const expected = structuredClone(before) as Record<string, { messages: unknown[] }>;
        expected.t0?.messages.push(["late", [{ type: "text", text: "late" }]]);
        expect(await readAll(url, { [OLD]: old, [NEW]: fresh }, NEW)).toEqual(expected);
        const rerun = await runSkein(["rekey", "--store", url, "--keys-file", rotated, "--json"]);
        expect(rerun.code, rerun.stderr).toBe(0);
        const report = JSON.parse(rerun.stdout);
        expect(report.complete).toBe(true);
        expect(report.remaining).toEqual({});
        expect(report.rewritten[OLD]).toBeGreaterThan(0);
        expect(existsSync(join(segment, "rekey.json"))).toBe(false);
        expect(readdirSync(segment).filter((name) => name.startsWith("rekey-"))).toEqual([]);
        // The old key can go: everything reads with the new one alone, and no unit under the old key is left.
        expect(await readAll(url, { [NEW]: fresh }, NEW)).toEqual(expected);
        const bytes = await storedBytes(directory);
        expect(bytes).toContain(`"key":"${NEW}"`);
        expect(bytes).not.toContain(`"key":"${OLD}"`);
      },
      180_000,
    );
  }
});

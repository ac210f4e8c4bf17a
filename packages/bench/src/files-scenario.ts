import { mkdtempSync, rmSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@skein/thread-core";
import type { Result } from "./compare.js";
import { type AppendLoadSubject, appendAndLoadResults } from "./in-process.js";
import { rawRecord, workloadMessages } from "./workload.js";

/** skein's file store beside appending the same JSON lines to a file with the same durability (fsync). */
export async function filesResults(rounds: number, count = 1000): Promise<Result[]> {
  const messages = workloadMessages(count);
  const directories: string[] = [];
  const directory = () => {
    const path = mkdtempSync(join(tmpdir(), "skein-bench-"));
    directories.push(path);
    return path;
  };
  const subjects: Array<[string, () => Promise<AppendLoadSubject>]> = [
    [
      "raw appendFile + fsync, read + JSON.parse",
      async () => {
        const file = join(directory(), "thread.jsonl");
        return {
          append: async (index) => {
            const handle = await open(file, "a");
            await handle.appendFile(`${JSON.stringify(rawRecord(messages[index] as never, index))}\n`);
            await handle.sync();
            await handle.close();
          },
          load: async () =>
            (await readFile(file, "utf8"))
              .split("\n")
              .filter(Boolean)
              .map((line) => JSON.parse(line)).length,
        };
      },
    ],
    [
      "skein fs store (fsync per append)",
      async () => {
        const store = await openStore(`file://${directory()}`);
        const thread = await store.create();
        return {
          append: (index) => thread.append(messages[index] as { role: "user"; text: string }),
          load: async () => (await thread.messages()).length,
          close: () => store.close(),
        };
      },
    ],
  ];
  try {
    return await appendAndLoadResults("files", rounds, count, subjects);
  } finally {
    for (const path of directories) rmSync(path, { recursive: true, force: true });
  }
}

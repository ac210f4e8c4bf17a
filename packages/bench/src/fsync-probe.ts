import { mkdirSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./measure.js";
import { temporaryDirectory } from "./temporary-directory.js";

/**
 * Issue 24's probe of the disk under the fs rows (not part of `npm run bench`): how long it takes to flush
 * 1, 2, 4, 7 and 8 directories at once, each with a file just created in it (as a rollback's first barrier
 * flushes 7 files and directories together), in turns, RUNS times each (default 200); and how long creating
 * an empty file takes. Where flushes at once overlap, 7 cost little more than 1; where the disk serialises
 * them, 7 cost about 7.
 */
async function flushAtOnce(directories: string[], round: number): Promise<number> {
  // A name of its own per count and round: every directory flushed has a new entry to flush.
  for (const directory of directories)
    writeFileSync(join(directory, `file-${directories.length}-${round}`), "");
  const start = process.hrtime.bigint();
  await Promise.all(
    directories.map(async (directory) => {
      const handle = await open(directory, "r");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }),
  );
  return Number(process.hrtime.bigint() - start) / 1000;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = Number(process.env.RUNS ?? 200);
  const base = temporaryDirectory();
  const directories = Array.from({ length: 8 }, (_, index) => join(base, `directory-${index}`));
  for (const directory of directories) mkdirSync(directory);
  const counts = [1, 2, 4, 7, 8];
  const times = new Map(counts.map((count) => [count, [] as number[]]));
  for (let round = 0; round < runs; round++) {
    for (const count of counts) times.get(count)?.push(await flushAtOnce(directories.slice(0, count), round));
  }
  for (const count of counts) {
    console.log(
      `${count} directories flushed at once: median ${median(times.get(count) ?? []).toFixed(0)} µs`,
    );
  }
  const created: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = process.hrtime.bigint();
    writeFileSync(join(base, `created-${index}`), "");
    created.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  console.log(`create an empty file: median ${median(created).toFixed(0)} µs`);
}

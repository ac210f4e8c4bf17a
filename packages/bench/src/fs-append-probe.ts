import { closeSync, fstatSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fsStore } from "@skein/adapter-fs";
import { measureInTurns } from "./measure.js";
import { temporaryDirectory } from "./temporary-directory.js";
import { rawRecord, workloadMessages } from "./workload.js";

/**
 * Issue 24's fs append probe, for strace and --cpu-prof runs and for quick ratios (not part of `npm run
 * bench`):
 * - `turns` (default): a skein fs append beside a raw appendFile + fsync of the same JSON and beside the
 *   floor of skein's design (a lock file created and removed around the same line and a 40-byte entry
 *   written to a store's segment files, each fdatasynced in order), in turns, REPEATS times (default 3);
 *   prints each repeat's medians and ratios, and their spread.
 * - `loop`: COUNT (default 200) appends to one thread after 20 unmeasured ones, nothing else; run it under
 *   `strace -f -c` or `--cpu-prof` to count system calls or CPU per append.
 */
const messages = workloadMessages(1000);
const message = (index: number) => messages[index % messages.length] as { role: "user"; text: string };

async function turns(repeats: number, runs: number) {
  const ratios: number[] = [];
  const floorRatios: number[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    const rawFile = join(temporaryDirectory(), "thread.jsonl");
    let rawIndex = 0;
    const raw = async () => {
      const handle = await open(rawFile, "a");
      try {
        await handle.appendFile(`${JSON.stringify(rawRecord(message(rawIndex), rawIndex++))}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    };
    const directory = temporaryDirectory();
    await using store = fsStore({ directory });
    const thread = await store.create();
    let index = 0;
    const append = () => thread.append(message(index++));
    for (let warm = 0; warm < 100; warm++) await append();
    await using floor = await designFloor(directory, store);
    const [rawTime, floorTime, appendTime] = (await measureInTurns(
      [raw, floor.run, append],
      runs,
      20,
      10,
    )) as [number, number, number];
    ratios.push(appendTime / rawTime);
    floorRatios.push(floorTime / rawTime);
    console.log(
      `repeat ${repeat + 1}: raw ${rawTime.toFixed(1)} µs, floor ${floorTime.toFixed(1)} µs (${(floorTime / rawTime).toFixed(2)}×), skein ${appendTime.toFixed(1)} µs (${(appendTime / rawTime).toFixed(2)}×)`,
    );
  }
  console.log(`skein/raw ${spread(ratios)}; floor/raw ${spread(floorRatios)}`);
}

/** The median and the range of `values`, as ratios. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const [low, middle, high] = [sorted[0], sorted[Math.floor(sorted.length / 2)], sorted[sorted.length - 1]];
  return `median ${(middle as number).toFixed(2)}×, spread ${(low as number).toFixed(2)}–${(high as number).toFixed(2)}×`;
}

/**
 * What skein's append cannot do without, on another thread's segment files of the same store: its lock file
 * created (with its ~120 bytes) and removed, the line written and fdatasynced, then a 40-byte entry written
 * and fdatasynced. Creating and removing the lock file are journal updates, which the next fdatasync commits.
 */
async function designFloor(directory: string, store: ReturnType<typeof fsStore>) {
  const other = await store.create();
  await other.append(message(0));
  const [segment] = readdirSync(join(directory, "segments")).filter((name) =>
    readFileSync(join(directory, "segments", name, "segment.json"), "utf8").includes(other.id),
  );
  const segmentDirectory = join(directory, "segments", segment as string);
  const log = await open(join(segmentDirectory, "messages.jsonl"), "r+");
  const index = await open(join(segmentDirectory, "index.bin"), "r+");
  const lock = join(directory, "locks", "floor.lock");
  const entry = Buffer.alloc(40, 7);
  let next = 0;
  return {
    run: async () => {
      const line = Buffer.from(`${JSON.stringify(message(next++))}\n`);
      const descriptor = openSync(lock, "wx");
      writeSync(descriptor, JSON.stringify({ pid: process.pid, nonce: "0".repeat(24), at: new Date() }));
      closeSync(descriptor);
      try {
        writeSync(log.fd, line, 0, line.length, fstatSync(log.fd).size);
        await log.datasync();
        writeSync(index.fd, entry, 0, entry.length, fstatSync(index.fd).size);
        await index.datasync();
      } finally {
        unlinkSync(lock);
      }
    },
    [Symbol.asyncDispose]: async () => {
      await log.close();
      await index.close();
    },
  };
}

async function loop(count: number) {
  const durability = process.env.DURABILITY === "batch" ? "batch" : "fsync";
  await using store = fsStore({ directory: temporaryDirectory(), durability });
  const thread = await store.create();
  for (let warm = 0; warm < 20; warm++) await thread.append(message(warm));
  // Marks the measured stretch in an strace log.
  await open("/dev/null", "r").then((handle) => handle.close());
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let index = 0; index < count; index++) await thread.append(message(index));
  const micros = Number(process.hrtime.bigint() - start) / 1000 / count;
  const used = process.cpuUsage(cpu);
  console.log(
    `${count} appends (${durability}): ${micros.toFixed(1)} µs each, CPU ${(used.user / count).toFixed(1)} µs user + ${(used.system / count).toFixed(1)} µs system each (all threads)`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const mode = process.argv[2] ?? "turns";
  if (mode === "loop") await loop(Number(process.env.COUNT ?? 200));
  else await turns(Number(process.env.REPEATS ?? 3), Number(process.env.RUNS ?? 400));
}

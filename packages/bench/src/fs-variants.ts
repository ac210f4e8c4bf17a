import { readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { fsStore as FsStore } from "@skein/adapter-fs";
import { aggregateTimes } from "./files-commit.js";
import { measureInTurns, median } from "./measure.js";
import { temporaryDirectory } from "./temporary-directory.js";
import { rawRecord, workloadMessages } from "./workload.js";

/**
 * Issue 24's step-by-step measurements (not part of `npm run bench`): two or more builds of adapter-fs in
 * one process, each step against the one before, in turns. VARIANTS lists `name=path` pairs, comma
 * separated, each path a built adapter-fs entry point (`@skein/adapter-fs` for this tree's build).
 * - `append` (default): a raw appendFile + fsync and one append of each variant, in turns, REPEATS times
 *   (default 3) of RUNS runs; prints each repeat's medians, each variant's ratio to the raw row and to the
 *   first variant, and their spreads.
 * - `cpu`: the CPU time per append of each variant, in blocks of 50 appends taking turns, REPEATS times
 *   of RUNS appends each: the process's (user + system, all threads: the median of the blocks) and the
 *   event loop's (the main thread's, from /proc: summed over the blocks, its clock ticks being coarse). On a
 *   loaded machine CPU time varies far less than wall time.
 * - `concurrency`: each variant's time per append with one writer and with 50 threads at once (the bench's
 *   `aggregateTimes`), the variants taking turns, REPEATS times of ROUNDS rounds; prints the time ratios.
 * - `history`: the bench's history rows (an append, a fork, a checkpoint and a rollback on a thread of 100
 *   messages that appends go on growing) of every variant, all of them in turns in blocks of 5, REPEATS
 *   times of RUNS runs each; prints each repeat's medians, wall time and the process's CPU time (user +
 *   system, all threads), and each row's median and spread over the repeats.
 */
const messages = workloadMessages(1000);
const message = (index: number) => messages[index % messages.length] as { role: "user"; text: string };

interface Variant {
  name: string;
  fsStore: typeof FsStore;
}

async function variants(): Promise<Variant[]> {
  const listed = (process.env.VARIANTS ?? "current=@skein/adapter-fs").split(",");
  return Promise.all(
    listed.map(async (pair) => {
      const [name, path] = pair.split("=") as [string, string];
      const module = (await import(path)) as { fsStore: typeof FsStore };
      return { name, fsStore: module.fsStore };
    }),
  );
}

async function appendTurns(all: Variant[], repeats: number, runs: number) {
  const ratios = all.map(() => [] as number[]);
  const steps = all.map(() => [] as number[]);
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
    const stores = all.map((variant) => variant.fsStore({ directory: temporaryDirectory() }));
    const appends = await Promise.all(
      stores.map(async (store) => {
        const thread = await store.create();
        let index = 0;
        return () => thread.append(message(index++));
      }),
    );
    for (const append of appends) for (let warm = 0; warm < 100; warm++) await append();
    const [rawTime, ...times] = (await measureInTurns([raw, ...appends], runs, 20, 10)) as number[];
    const first = times[0] as number;
    const line = times.map((time, index) => {
      (ratios[index] as number[]).push(time / (rawTime as number));
      (steps[index] as number[]).push(time / first);
      return `${all[index]?.name} ${time.toFixed(1)} µs (${(time / (rawTime as number)).toFixed(2)}× raw, ${(time / first).toFixed(3)}× ${all[0]?.name})`;
    });
    console.log(`repeat ${repeat + 1}: raw ${(rawTime as number).toFixed(1)} µs; ${line.join("; ")}`);
    await Promise.all(stores.map((store) => store.close()));
  }
  for (const [index, variant] of all.entries()) {
    console.log(
      `${variant.name}: /raw ${spread(ratios[index] as number[])}; /${all[0]?.name} ${spread(steps[index] as number[], 3)}`,
    );
  }
}

async function cpuTurns(all: Variant[], repeats: number, runs: number) {
  const steps = all.map(() => [] as number[]);
  for (let repeat = 0; repeat < repeats; repeat++) {
    const stores = all.map((variant) => variant.fsStore({ directory: temporaryDirectory() }));
    const appends = await Promise.all(
      stores.map(async (store) => {
        const thread = await store.create();
        let index = 0;
        return () => thread.append(message(index++));
      }),
    );
    for (const append of appends) for (let warm = 0; warm < 100; warm++) await append();
    const times = appends.map(() => [] as number[]);
    const mainThread = appends.map(() => 0);
    const block = 50;
    for (let round = 0; round < runs / block; round++) {
      const order = appends.map((_, index) => index);
      if (round % 2) order.reverse();
      for (const index of order) {
        const append = appends[index] as () => Promise<unknown>;
        const cpu = process.cpuUsage();
        const ticks = mainThreadTicks();
        for (let run = 0; run < block; run++) await append();
        const used = process.cpuUsage(cpu);
        mainThread[index] = (mainThread[index] as number) + mainThreadTicks() - ticks;
        (times[index] as number[]).push((used.user + used.system) / block);
      }
    }
    const medians = times.map(median);
    const first = medians[0] as number;
    // Clock ticks of 10 ms (the usual USER_HZ of 100) over runs appends, in µs per append.
    const loop = mainThread.map((ticks) => (ticks * 10_000) / runs);
    const firstLoop = loop[0] as number;
    console.log(
      `repeat ${repeat + 1}: ${medians.map((time, index) => `${all[index]?.name} ${time.toFixed(1)} µs CPU (${(time / first).toFixed(3)}×), event loop ${(loop[index] as number).toFixed(0)} µs (${((loop[index] as number) / firstLoop).toFixed(3)}×)`).join("; ")}`,
    );
    for (const [index, time] of loop.entries()) (steps[index] as number[]).push(time / firstLoop);
    await Promise.all(stores.map((store) => store.close()));
  }
  for (const [index, variant] of all.entries())
    console.log(`${variant.name}: event-loop CPU /${all[0]?.name} ${spread(steps[index] as number[], 3)}`);
}

async function concurrencyTurns(all: Variant[], repeats: number, rounds: number) {
  const ratios = all.map(() => [] as number[]);
  for (let repeat = 0; repeat < repeats; repeat++) {
    const order = all.map((_, index) => index);
    if (repeat % 2) order.reverse();
    for (const index of order) {
      const store = (all[index] as Variant).fsStore({ directory: temporaryDirectory() });
      try {
        const [one, many] = await aggregateTimes(store, message, rounds);
        (ratios[index] as number[]).push(many / one);
        console.log(
          `repeat ${repeat + 1}: ${all[index]?.name} one writer ${one.toFixed(1)} µs, 50 at once ${many.toFixed(1)} µs (time ratio ${(many / one).toFixed(2)}, ${(one / many).toFixed(2)}× the rate)`,
        );
      } finally {
        await store.close();
      }
    }
  }
  for (const [index, variant] of all.entries())
    console.log(`${variant.name}: time ratio ${spread(ratios[index] as number[])}`);
}

async function historyTurns(all: Variant[], repeats: number, runs: number) {
  const rows = ["append", "fork", "checkpoint", "rollback"];
  const wall = all.map(() => rows.map(() => [] as number[]));
  const cpu = all.map(() => rows.map(() => [] as number[]));
  for (let repeat = 0; repeat < repeats; repeat++) {
    const stores = all.map((variant) => variant.fsStore({ directory: temporaryDirectory() }));
    const operations = await Promise.all(
      stores.map(async (store) => {
        // As in `filesCommitResults`: a thread of 100 messages, rolled back to its 100th each time.
        const target = await store.create();
        for (let warm = 0; warm < 100; warm++) await target.append(message(warm));
        const anchor = (await target.messages({ last: 1 }))[0]?.id as string;
        let index = 100;
        return [
          () => target.append(message(index++)),
          () => target.fork(),
          () => target.checkpoint(),
          () => target.rollback(anchor),
        ];
      }),
    );
    const flat = operations.flat();
    const [wallTimes, cpuTimes] = await blocksInTurns(flat, runs, 5);
    const line = all.map((variant, index) => {
      const at = (row: number) => index * rows.length + row;
      for (const row of rows.keys()) {
        (wall[index] as number[][])[row]?.push(wallTimes[at(row)] as number);
        (cpu[index] as number[][])[row]?.push(cpuTimes[at(row)] as number);
      }
      const own = rows.map(
        (row, at2) =>
          `${row} ${(wallTimes[at(at2)] as number).toFixed(0)}/${(cpuTimes[at(at2)] as number).toFixed(0)}`,
      );
      return `${variant.name} ${own.join(", ")}`;
    });
    console.log(`repeat ${repeat + 1} (wall/CPU µs): ${line.join("; ")}`);
    await Promise.all(stores.map((store) => store.close()));
  }
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${median(sorted).toFixed(0)} (${(sorted[0] as number).toFixed(0)}–${(sorted[sorted.length - 1] as number).toFixed(0)})`;
  };
  for (const [index, variant] of all.entries()) {
    const parts = rows.map(
      (row, at) =>
        `${row} ${summary((wall[index] as number[][])[at] as number[])} / CPU ${summary((cpu[index] as number[][])[at] as number[])}`,
    );
    console.log(`${variant.name} µs: ${parts.join("; ")}`);
  }
}

/**
 * Like `measureInTurns`, with the process's CPU time (user + system, all threads) beside the wall time:
 * each operation runs in blocks of `perBlock`, the operations taking turns (every other round reversed);
 * the medians of the blocks' times per run, wall and CPU.
 */
async function blocksInTurns(operations: Array<() => Promise<unknown>>, runs: number, perBlock: number) {
  for (const operation of operations) for (let warm = 0; warm < perBlock; warm++) await operation();
  const wallTimes = operations.map(() => [] as number[]);
  const cpuTimes = operations.map(() => [] as number[]);
  for (let round = 0; round < Math.max(1, Math.round(runs / perBlock)); round++) {
    const order = operations.map((_, index) => index);
    if (round % 2) order.reverse();
    for (const index of order) {
      const operation = operations[index] as () => Promise<unknown>;
      const used = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let run = 0; run < perBlock; run++) await operation();
      (wallTimes[index] as number[]).push(Number(process.hrtime.bigint() - start) / 1000 / perBlock);
      const spent = process.cpuUsage(used);
      (cpuTimes[index] as number[]).push((spent.user + spent.system) / perBlock);
    }
  }
  return [wallTimes.map(median), cpuTimes.map(median)] as const;
}

/** The main thread's CPU time so far (user + system), in clock ticks (/proc/self/task/<pid>/stat). */
function mainThreadTicks(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** The median and the range of `values`. */
function spread(values: number[], digits = 2): string {
  const sorted = [...values].sort((a, b) => a - b);
  const [low, middle, high] = [sorted[0], sorted[Math.floor(sorted.length / 2)], sorted[sorted.length - 1]];
  return `median ${(middle as number).toFixed(digits)}×, spread ${(low as number).toFixed(digits)}–${(high as number).toFixed(digits)}×`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const mode = process.argv[2] ?? "append";
  const repeats = Number(process.env.REPEATS ?? 3);
  const all = await variants();
  if (mode === "cpu") await cpuTurns(all, repeats, Number(process.env.RUNS ?? 1000));
  else if (mode === "history") await historyTurns(all, repeats, Number(process.env.RUNS ?? 100));
  else if (mode === "concurrency") await concurrencyTurns(all, repeats, Number(process.env.ROUNDS ?? 2));
  else await appendTurns(all, repeats, Number(process.env.RUNS ?? 400));
}

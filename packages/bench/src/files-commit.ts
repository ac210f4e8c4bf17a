import { mkdirSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore, type Thread } from "@skein/thread-core";
import { type Result, ratioRows } from "./compare.js";
import { measureInTurns, median, printTable } from "./measure.js";
import { temporaryDirectory } from "./temporary-directory.js";
import { rawRecord, workloadMessages } from "./workload.js";

/** Threads written at once in the concurrent row, and appends each. */
const WRITERS = 50;
const APPENDS_EACH = 20;
/** Blocks per round in which one writer and the concurrent threads take turns. */
const TURNS = 5;

/**
 * The fs store's commit path measured in turns beside its floors (issue 24): an append beside a raw
 * `appendFile` + fsync of the same JSON; fork, checkpoint and rollback beside an fs append; and the
 * aggregate rate of 50 threads appended at once through one store beside one writer's rate.
 */
export async function filesCommitResults(rounds: number): Promise<Result[]> {
  const messages = workloadMessages(1000);
  const message = (index: number) => messages[index % messages.length] as { role: "user"; text: string };
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
  const storeDirectory = temporaryDirectory();
  const store = await openStore(`file://${storeDirectory}`);
  try {
    const thread = await store.create();
    let index = 0;
    const append = () => thread.append(message(index++));
    // Back-to-back appends of one thread reuse its lock (kept for the event loop's turn); an append that
    // comes in a later turn, as one request's single append does, takes and releases the lock itself.
    const appendInNewTurn = () => new Promise<void>((resolve) => setImmediate(resolve)).then(append);
    for (let warm = 0; warm < 100; warm++) await append();
    const runs = rounds * 40;
    const [rawTime, appendTime, newTurnTime] = await measureInTurns(
      [raw, append, appendInNewTurn],
      runs,
      20,
      rounds * 2,
    );
    // Fork, checkpoint and rollback each act on a thread of 100 messages that appends go on growing.
    const target = await store.create();
    for (let warm = 0; warm < 100; warm++) await target.append(message(warm));
    const anchor = (await target.messages({ last: 1 }))[0]?.id as string;
    // What the machine charges for a new file, beside them: a fork or a rollback makes a new head segment
    // (2 directories and 6 files) and its references, and takes the store's references lock (a lock file).
    // Made in the store's own directory (which the store does not read): how fast a file system creates a
    // file can depend on where in it the directory lies.
    const probes = join(storeDirectory, "bench-probe");
    mkdirSync(probes);
    let probe = 0;
    const createFile = async () => writeFileSync(join(probes, `file-${probe++}`), "");
    const [appendBeside, fork, checkpoint, rollback, created] = await measureInTurns(
      [
        () => target.append(message(index++)),
        () => target.fork(),
        () => target.checkpoint(),
        () => target.rollback(anchor),
        createFile,
      ],
      rounds * 20,
      5,
      rounds * 2,
    );
    const [one, many] = await aggregateTimes(store, message, rounds);
    const scenario = "fs commit";
    return [
      {
        scenario,
        metric: "append one message (in turns)",
        subject: "raw appendFile + fsync",
        micros: rawTime,
      },
      {
        scenario,
        metric: "append one message (in turns)",
        subject: "skein fs append (back to back)",
        micros: appendTime,
      },
      {
        scenario,
        metric: "append one message (in turns)",
        subject: "skein fs append (each in a new event-loop turn)",
        micros: newTurnTime,
      },
      { scenario, metric: "history operation (in turns)", subject: "skein fs append", micros: appendBeside },
      { scenario, metric: "history operation (in turns)", subject: "skein fs fork", micros: fork },
      {
        scenario,
        metric: "history operation (in turns)",
        subject: "skein fs checkpoint",
        micros: checkpoint,
      },
      { scenario, metric: "history operation (in turns)", subject: "skein fs rollback", micros: rollback },
      {
        scenario,
        metric: "the file system beside them (in turns)",
        subject: "create an empty file (writeFileSync)",
        micros: created,
      },
      {
        scenario,
        metric: "time per append, one writer vs 50 threads at once",
        subject: "skein fs, one writer",
        micros: one,
      },
      {
        scenario,
        metric: "time per append, one writer vs 50 threads at once",
        subject: `skein fs, ${WRITERS} threads at once`,
        micros: many,
        note:
          one !== undefined && many !== undefined ? `${(one / many).toFixed(2)}× the one-writer rate` : "",
      },
    ] satisfies Result[];
  } finally {
    await store.close();
  }
}

/**
 * Wall time per append with one writer (WRITERS × APPENDS_EACH appends one after another, across the same
 * threads) and with WRITERS threads appended at once (each thread's appends in order), in turns: each round
 * alternates the two in TURNS blocks of WRITERS × APPENDS_EACH / TURNS appends, so drift in the machine's speed
 * falls on both alike; medians of the blocks.
 */
export async function aggregateTimes(
  store: Awaited<ReturnType<typeof openStore>>,
  message: (index: number) => { role: "user"; text: string },
  rounds: number,
): Promise<[number, number]> {
  const one: number[] = [];
  const many: number[] = [];
  const steps = APPENDS_EACH / TURNS;
  const total = WRITERS * steps;
  const threads = async () => {
    const made: Thread[] = [];
    for (let index = 0; index < WRITERS; index++) made.push(await store.create());
    return made;
  };
  const sequentially = async (made: Thread[], from: number) => {
    const start = process.hrtime.bigint();
    for (let step = from; step < from + steps; step++)
      for (const thread of made) await thread.append(message(step));
    return Number(process.hrtime.bigint() - start) / 1000 / total;
  };
  const atOnce = async (made: Thread[], from: number) => {
    const start = process.hrtime.bigint();
    await Promise.all(
      made.map(async (thread) => {
        for (let step = from; step < from + steps; step++) await thread.append(message(step));
      }),
    );
    return Number(process.hrtime.bigint() - start) / 1000 / total;
  };
  for (let round = 0; round < rounds + 1; round++) {
    const [sequential, concurrent] = [await threads(), await threads()];
    for (let turn = 0; turn < TURNS; turn++) {
      const from = turn * steps;
      let oneTime: number;
      let manyTime: number;
      if (turn % 2 === 0) {
        oneTime = await sequentially(sequential, from);
        manyTime = await atOnce(concurrent, from);
      } else {
        manyTime = await atOnce(concurrent, from);
        oneTime = await sequentially(sequential, from);
      }
      if (round === 0) continue; // warm-up
      one.push(oneTime);
      many.push(manyTime);
    }
  }
  return [median(one), median(many)];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rounds = Number(process.env.ROUNDS ?? 5);
  const results = await filesCommitResults(rounds);
  printTable(["scenario", "metric", "subject", "median", "ratio", "note"], ratioRows(results));
}

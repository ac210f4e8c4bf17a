import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import type { EncryptionOptions } from "@skein/thread-core/driver";
import type { FreshStore, StoreFactory } from "./fresh-stores.js";

/** The sizes of issue 41's rows (`--quick`: fewer rounds). */
export const ENCRYPTION_SIZES = {
  /** Messages in the thread appended to and viewed. */
  seeded: 200,
  /** Timed operations of each kind per side and round. */
  perRound: 40,
  /** Messages in each thread viewed once (the first-read row). */
  coldMessages: 25,
  /** Appends to one thread at once (the concurrent row). */
  concurrent: 20,
  /**
   * Untimed appends and views of a thread of its own per side before the rounds (and a tenth as many first
   * views), as the rest of the bench warms up (`in-process.ts`, `measure.ts`): V8 compiles the code each side
   * runs only after it ran a while, and the encrypting layer's code is run by the encrypted side alone, so
   * rounds run cold would measure its first appends in a process (about 10× its settled CPU) against clear
   * code the seeding warmed. `--quick`: a fifth as many.
   */
  warmup: 1_000,
};

export const ENCRYPTION_OPERATIONS = {
  append: "append",
  view: "view(last 20)",
  firstView: "view(last 20), messages not read before in this process",
  concurrent: `${ENCRYPTION_SIZES.concurrent} concurrent appends, one thread, one process (per append)`,
} as const;

/** One operation on one store, encrypted and in clear: medians of per-operation microseconds. */
export interface EncryptionRow {
  store: string;
  operation: string;
  plainMicros: number;
  encryptedMicros: number;
}

type Side = "plain" | "encrypted";
const SIDES: readonly Side[] = ["plain", "encrypted"];

/** What one side of a store holds for the rounds: the thread, and the threads each viewed once. */
interface Subject {
  fresh: FreshStore;
  /** A second store on the same backend and keys that wrote the first-read threads (its memory is its own). */
  writer: ThreadStore | undefined;
  thread: Thread;
  unread: Thread[];
  /** The thread and first-read threads the untimed warm-up uses (`ENCRYPTION_SIZES.warmup`). */
  warm: { thread: Thread; unread: Thread[] };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Microseconds of each call of `operation`, one after another. */
async function timeEach(count: number, operation: (index: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await operation(index);
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

function messages(count: number, stem: string) {
  return Array.from({ length: count }, (_, index) => ({ role: "user" as const, text: `${stem} ${index}` }));
}

/**
 * One side's store, its seeded thread, and the threads read once: written through a second store on the
 * same backend (fs, Redis, PostgreSQL: shared; memory: none, so that row is left out), so the measuring
 * store has never sealed or opened their messages.
 */
async function subject(
  factory: StoreFactory,
  encryption: EncryptionOptions | undefined,
  unreadCount: number,
  warmup: number,
): Promise<Subject> {
  const options = encryption ? { encryption } : {};
  const fresh = await factory.fresh(options);
  const thread = await fresh.store.create();
  await thread.append(messages(ENCRYPTION_SIZES.seeded, "seeded message"));
  const warmThread = await fresh.store.create();
  await warmThread.append(messages(ENCRYPTION_SIZES.seeded, "warm-up message"));
  if (!fresh.url)
    return { fresh, writer: undefined, thread, unread: [], warm: { thread: warmThread, unread: [] } };
  const writer = await openStore(fresh.url, options);
  const unreadBy = async (count: number, stem: string) => {
    const threads: Thread[] = [];
    for (let index = 0; index < count; index++) {
      const written = await writer.create();
      await written.append(messages(ENCRYPTION_SIZES.coldMessages, `${stem} ${index} message`));
      threads.push(await fresh.store.get(written.id));
    }
    return threads;
  };
  const unread = await unreadBy(unreadCount, "thread");
  const warm = { thread: warmThread, unread: await unreadBy(Math.ceil(warmup / 10), "warm-up thread") };
  return { fresh, writer, thread, unread, warm };
}

/** The untimed warm-up of one side: appends, views, first views and concurrent appends, as the rounds do. */
async function warmUp({ warm }: Subject, warmup: number): Promise<void> {
  for (let index = 0; index < warmup; index++) {
    await warm.thread.append({ role: "assistant", text: `warm-up reply ${index} with a few words` });
    await warm.thread.view({ maxMessages: 20 });
  }
  for (const thread of warm.unread) await thread.view({ maxMessages: 20 });
  for (let batch = 0; batch < warmup / 100; batch++) {
    await Promise.all(
      Array.from({ length: ENCRYPTION_SIZES.concurrent }, (_, index) =>
        warm.thread.append({ role: "user", text: `warm-up concurrent ${batch}-${index}` }),
      ),
    );
  }
}

/**
 * Issue 41's rows on one store: append, view(last 20) of the thread appended to, a first view of threads
 * another store wrote, and concurrent appends, each on an encrypted store and the same store in clear.
 * The sides alternate within each round, so a machine that slows down slows both alike.
 */
export async function encryptionRows(
  factory: StoreFactory,
  rounds: number,
  warmup: number = ENCRYPTION_SIZES.warmup,
): Promise<EncryptionRow[]> {
  const encryption: EncryptionOptions = { keys: { bench: randomBytes(32) }, current: "bench" };
  const { perRound, concurrent } = ENCRYPTION_SIZES;
  const subjects: Record<Side, Subject> = {
    plain: await subject(factory, undefined, rounds * perRound, warmup),
    encrypted: await subject(factory, encryption, rounds * perRound, warmup),
  };
  const times: Record<string, Record<Side, number[]>> = {};
  const note = (operation: string, side: Side, values: number[]) => {
    const entry = times[operation] ?? { plain: [], encrypted: [] };
    times[operation] = entry;
    entry[side].push(...values);
  };
  try {
    for (const side of SIDES) await warmUp(subjects[side], warmup);
    for (let round = 0; round < rounds; round++) {
      for (const side of SIDES) {
        const { thread, unread } = subjects[side];
        note(
          ENCRYPTION_OPERATIONS.append,
          side,
          await timeEach(perRound, (index) =>
            thread.append({ role: "assistant", text: `round ${round} reply ${index} with a few words` }),
          ),
        );
        note(
          ENCRYPTION_OPERATIONS.view,
          side,
          await timeEach(perRound, () => thread.view({ maxMessages: 20 })),
        );
        if (unread.length > 0) {
          note(
            ENCRYPTION_OPERATIONS.firstView,
            side,
            await timeEach(perRound, (index) =>
              (unread[round * perRound + index] as Thread).view({ maxMessages: 20 }),
            ),
          );
        }
        const start = performance.now();
        await Promise.all(
          Array.from({ length: concurrent }, (_, index) =>
            thread.append({ role: "user", text: `concurrent ${round}-${index}` }),
          ),
        );
        note(ENCRYPTION_OPERATIONS.concurrent, side, [((performance.now() - start) * 1000) / concurrent]);
      }
    }
  } finally {
    for (const side of SIDES) {
      await subjects[side].writer?.close();
      await subjects[side].fresh.dispose();
    }
  }
  return Object.entries(times).map(([operation, sides]) => ({
    store: factory.name,
    operation,
    plainMicros: median(sides.plain),
    encryptedMicros: median(sides.encrypted),
  }));
}

/** The machine's load average (1, 5 and 15 minutes) as BENCHMARKS.md gives it. */
export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
}

/** A store for each factory, in turn. */
export async function encryptionRowsOf(
  factories: StoreFactory[],
  rounds: number,
  warmup: number,
  progress: (line: string) => void = () => {},
): Promise<EncryptionRow[]> {
  const rows: EncryptionRow[] = [];
  for (const factory of factories) {
    progress(`  encryption: ${factory.name}…`);
    rows.push(...(await encryptionRows(factory, rounds, warmup)));
  }
  return rows;
}

// Issue 41's rows: append and view(last 20) on fs and Redis stores, encrypted at rest against the same store in
// clear, and concurrent appends to one thread from one process (which an encrypted store queues, see
// thread-core's append-queue.ts). Plain and encrypted rounds alternate, so a busy machine slows both alike.
// Run: node --import tsx src/encryption-probe.ts [rounds]   (prints markdown rows for BENCHMARKS.md)
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import type { EncryptionOptions } from "@skein/thread-core/driver";
import { withRedis } from "./redis-server.js";
import { temporaryDirectory } from "./temporary-directory.js";

const ROUNDS = Number(process.argv[2] ?? 6);
const PER_ROUND = 40;
const SEEDED = 200;
const CONCURRENT = 20;
const encryption: EncryptionOptions = { keys: { bench: randomBytes(32) }, current: "bench" };

interface Subject {
  name: string;
  open(encrypted: boolean): Promise<ThreadStore>;
}

interface Sides {
  plain: number[];
  encrypted: number[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function seeded(store: ThreadStore): Promise<Thread> {
  const thread = await store.create();
  await thread.append(
    Array.from({ length: SEEDED }, (_, index) => ({
      role: "user" as const,
      text: `seeded message ${index}`,
    })),
  );
  return thread;
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

async function measure(subject: Subject): Promise<Record<string, Sides>> {
  const rows: Record<string, Sides> = {
    append: { plain: [], encrypted: [] },
    "view(last 20)": { plain: [], encrypted: [] },
    [`${CONCURRENT} concurrent appends, one thread, one process (per append)`]: { plain: [], encrypted: [] },
  };
  const stores = { plain: await subject.open(false), encrypted: await subject.open(true) };
  try {
    const threads = { plain: await seeded(stores.plain), encrypted: await seeded(stores.encrypted) };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ["plain", "encrypted"] as const) {
        const thread = threads[side];
        (rows.append as Sides)[side].push(
          ...(await timeEach(PER_ROUND, (index) =>
            thread.append({ role: "assistant", text: `round ${round} reply ${index} with a few words` }),
          )),
        );
        (rows["view(last 20)"] as Sides)[side].push(
          ...(await timeEach(PER_ROUND, () => thread.view({ maxMessages: 20 }))),
        );
        const start = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENT }, (_, index) =>
            thread.append({ role: "user", text: `concurrent ${round}-${index}` }),
          ),
        );
        const concurrent = rows[Object.keys(rows)[2] as string] as Sides;
        concurrent[side].push(((performance.now() - start) * 1000) / CONCURRENT);
      }
    }
  } finally {
    await stores.plain.close();
    await stores.encrypted.close();
  }
  return rows;
}

async function main(): Promise<void> {
  await withRedis(async (redisUrl) => {
    const subjects: Subject[] = [
      {
        name: "fs",
        open: (encrypted) => openStore(`file://${temporaryDirectory()}`, encrypted ? { encryption } : {}),
      },
    ];
    if (redisUrl) {
      subjects.push({
        name: "redis",
        open: (encrypted) => {
          const target = new URL(redisUrl);
          target.searchParams.set("prefix", `bench-enc-${process.pid}-${randomBytes(4).toString("hex")}`);
          return openStore(target.href, encrypted ? { encryption } : {});
        },
      });
    }
    const lines = [
      "| store | operation | plain (median µs) | encrypted (median µs) | encrypted / plain |",
      "|---|---|---:|---:|---:|",
    ];
    for (const subject of subjects) {
      for (const [operation, sides] of Object.entries(await measure(subject))) {
        const plain = median(sides.plain);
        const encrypted = median(sides.encrypted);
        lines.push(
          `| ${subject.name} | ${operation} | ${plain.toFixed(0)} | ${encrypted.toFixed(0)} | ${(encrypted / plain).toFixed(2)}× |`,
        );
      }
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  });
}

await main();

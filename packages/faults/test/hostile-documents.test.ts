import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { exited, runChild, startChild } from "./support/child-processes.js";
import type { DocumentShape } from "./support/hangs.js";
import { chooseSeed } from "./support/seeded-random.js";
import { tally } from "./support/tally.js";
import { temporaryDirectory } from "./support/temporary-directories.js";
import { deleteKeys, redisStoreUrl, uniquePrefix, useRedis } from "./support/test-redis.js";

/** Documents into parseThreadState and store.open, split over two processes (one per core). */
const DOCUMENTS = 10_000;
const PROCESSES = 2;
/** 5,000 documents take ~40 s on a quiet 2-core machine and 100 s beside other work: ample for either. */
const WHOLE_RUN_BOUND_MS = 500_000;

const redis = useRedis();

interface Summary {
  documents: number;
  kinds: Record<string, number>;
  outcomes: Record<string, Record<string, number>>;
  unexpected: Array<{ target: string; kind: string; error: string }>;
  slowest: Array<{ target: string; kind: string; ms: number }>;
  pollutedBy?: string;
  networkAttempts: number;
  /** The document on which a call did not settle; the child exited there. */
  hung?: { index: number; target: string; kind: string; shape: DocumentShape };
}

/**
 * Runs the document child over documents 0…count-1 of `seed`, starting it again after each document on
 * which a call hung (the child names it and exits 3); gives every run's summary.
 */
async function feedDocuments(seed: number, count: number, directory: string): Promise<Summary[]> {
  const summaries: Summary[] = [];
  for (let from = 0; ; ) {
    const child = startChild("open-hostile-documents.ts", [
      String(seed),
      String(count),
      directory,
      String(from),
    ]);
    child.process.stdin?.end();
    // Each call is already bounded inside the child (HANG_MS); this only ends a child that stopped answering.
    const timer = setTimeout(() => child.process.kill("SIGKILL"), WHOLE_RUN_BOUND_MS);
    const code = await exited(child.process);
    clearTimeout(timer);
    const last = child.output.lines().at(-1);
    if ((code !== 0 && code !== 3) || last === undefined) {
      throw new Error(
        `seed ${seed}: the document child ended with ${code}: ${child.output.stderr().slice(-4000)}`,
      );
    }
    const summary = JSON.parse(last) as Summary;
    summaries.push(summary);
    if (code === 0) return summaries;
    from = (summary.hung?.index as number) + 1;
  }
}

describe("hostile documents", () => {
  it(
    `${DOCUMENTS} generated and mutated documents into parseThreadState and store.open: only SkeinErrors, no hang, no pollution`,
    async () => {
      const seed = chooseSeed();
      const directory = await temporaryDirectory("hostile-documents");
      const runs = await Promise.all(
        Array.from({ length: PROCESSES }, (_, index) =>
          feedDocuments(seed + index * 1_000_003, DOCUMENTS / PROCESSES, join(directory, `store-${index}`)),
        ),
      );
      const summaries = runs.flat();
      const outcomes: Record<string, Record<string, number>> = {};
      const hangs = summaries.flatMap((summary) => (summary.hung ? [summary.hung] : []));
      // No call may hang (the open/import loop this run once found is fixed; the last test guards it).
      expect(hangs, `seed ${seed}`).toEqual([]);
      for (const summary of summaries) {
        expect(summary.unexpected, `seed ${seed}: errors that are not SkeinErrors`).toEqual([]);
        expect(summary.pollutedBy, `seed ${seed}`).toBeUndefined();
        expect(summary.networkAttempts).toBe(0);
        for (const [target, counts] of Object.entries(summary.outcomes))
          for (const [outcome, count] of Object.entries(counts)) tally(outcomes, target, outcome, count);
      }
      // Every document was fed in (a hung one counts once, as far as it got).
      expect(summaries.reduce((sum, summary) => sum + summary.documents, 0)).toBe(DOCUMENTS);
      // The mix reached both ends: documents accepted, and documents refused.
      expect(outcomes["memory.open"]?.accepted).toBeGreaterThan(0);
      expect(outcomes["memory.open"]?.InvalidThreadStateError).toBeGreaterThan(DOCUMENTS / 4);
      const kinds: Record<string, number> = {};
      for (const summary of summaries)
        for (const [kind, count] of Object.entries(summary.kinds)) kinds[kind] = (kinds[kind] ?? 0) + count;
      const slowest = summaries.flatMap((summary) => summary.slowest).sort((a, b) => b.ms - a.ms)[0];
      console.info(
        `seed ${seed}; kinds ${JSON.stringify(kinds)}; outcomes ${JSON.stringify(outcomes)}; slowest call ${JSON.stringify(slowest)}; ` +
          `${hangs.length} calls hung`,
      );
    },
    WHOLE_RUN_BOUND_MS + 60_000,
  );

  // Regression: found by the document run above. LocalStore.open imported a state of the store's own type
  // carrying a log's fields, and LocalStore.import first opened what it imports, so for an `fs` state in an fs
  // store (or `redis` in a redis store) with `end` and `segments` they called each other forever. Now only
  // memory JSON is imported by open, and a reference type's state is refused by import.
  it("a state of the store's own type that carries a log: open and import settle, with an error or a thread", async () => {
    const prefix = uniquePrefix("native-log");
    const stores = [
      ["fs", pathToFileURL(join(await temporaryDirectory("native-log"), "store")).href],
      ["redis", redisStoreUrl(redis.url(), prefix)],
    ];
    const runs = stores.flatMap(([name, url]) =>
      ["open", "import", "open-workflow"].map(async (operation) => {
        const output = await runChild("open-native-log.ts", [url as string, operation], {
          // Only a call that never settles is killed: a busy machine may take seconds, a loop takes forever.
          withinMs: 60_000,
        }).catch((error: Error) => `${name} ${operation}: ${error.message.split("\n")[0]}`);
        return `${name} ${operation}: ${output.trim()}`;
      }),
    );
    const outcomes = await Promise.all(runs);
    await deleteKeys(redis.url(), prefix);
    for (const outcome of outcomes) expect(outcome).toMatch(/: settled (ok|[A-Za-z]+Error)$/);
  });
});

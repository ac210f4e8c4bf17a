import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore, type ThreadStore } from "@skein/thread-core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { fileStore, postgresStore, redisStore, type SharedStore } from "./support/backends.js";
import { usePostgres } from "./support/test-postgres.js";
import { escapePattern, useRedis, withClient } from "./support/test-redis.js";

const redis = useRedis();
const postgres = usePostgres();

const ROUNDS = 12;
const THREADS_PER_ROUND = 25;
const HOUR = 3_600_000;

/** How many files a directory holds, all levels down (temporary and staging files included). */
async function fileCount(directory: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    count += entry.isDirectory() ? await fileCount(join(directory, entry.name)) : 1;
  }
  return count;
}

/** How many keys a redis store holds under its prefix. */
function keyCount(url: string): Promise<number> {
  const prefix = new URL(url).searchParams.get("prefix") as string;
  return withClient(url, async (client) => {
    let count = 0;
    for await (const batch of client.scanIterator({ MATCH: `${escapePattern(prefix)}:*`, COUNT: 1000 }))
      count += batch.length;
    return count;
  });
}

/** How many rows every table of a postgres store's schema holds together. */
async function rowCount(url: string): Promise<number> {
  const schema = new URL(url).searchParams.get("schema") as string;
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
      [schema],
    );
    let count = 0;
    for (const row of rows) {
      const counted = await client.query(`SELECT count(*)::int AS n FROM "${schema}"."${row.table_name}"`);
      count += counted.rows[0].n as number;
    }
    return count;
  } finally {
    await client.end();
  }
}

/** A round of a chat service: threads created, talked in, some forked, then abandoned. */
async function abandonedRound(store: ThreadStore, round: number): Promise<void> {
  await Promise.all(
    Array.from({ length: THREADS_PER_ROUND }, async (_, index) => {
      const thread = await store.create({ id: `r${round}-${index}`, owner: `u-${index % 5}` });
      await thread.append([
        { role: "user", text: `question ${round}.${index}` },
        { role: "assistant", text: `answer ${round}.${index} `.repeat(20) },
      ]);
      await thread.checkpoint("answered");
      if (index % 5 === 0) {
        const fork = await thread.fork({ id: `r${round}-${index}-fork` });
        await fork.append({ role: "user", text: "another way?" });
      }
    }),
  );
}

describe.each([
  ["fs", () => fileStore("retention-soak"), (url: string) => fileCount(fileURLToPath(url))],
  ["redis", async () => redisStore(redis.url(), "retention-soak"), keyCount],
  ["postgres", async () => postgresStore(postgres.url(), "retention-soak"), rowCount],
] as Array<[string, () => Promise<SharedStore> | SharedStore, (url: string) => Promise<number>]>)(
  "%s: a store with a retention policy under a soak",
  (_name, make, size) => {
    it(`stays bounded through ${ROUNDS} rounds of threads created and abandoned`, async () => {
      const shared = await make();
      const clock = { now: Date.now() };
      const store = await openStore(shared.url, {
        retention: { idleFor: "30m", keep: (thread) => thread.id === "pinned", now: () => clock.now },
      });
      try {
        await store.create({ id: "pinned", title: "kept by the policy's keep" });
        const afterSweeps: number[] = [];
        let peak = 0;
        for (let round = 0; round < ROUNDS; round++) {
          clock.now = Date.now();
          await abandonedRound(store, round);
          peak = Math.max(peak, await size(shared.url));
          clock.now = Date.now() + HOUR; // every thread of the round is now idle for an hour
          const report = await store.sweep({ batchSize: 20 });
          expect(report.deleted).toBe(THREADS_PER_ROUND + THREADS_PER_ROUND / 5);
          afterSweeps.push(await size(shared.url));
        }
        // What a sweep leaves does not grow with the rounds: the abandoned threads' storage is reclaimed.
        expect(Math.max(...afterSweeps)).toBe(afterSweeps[0]);
        expect(afterSweeps[0]).toBeLessThan(peak);
        expect((await store.list()).items.map((item) => item.id)).toEqual(["pinned"]);
      } finally {
        await store.close();
        await shared.cleanup();
      }
    });
  },
);

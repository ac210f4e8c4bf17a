import { openStore, type Thread } from "@skein/thread-core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { fileStore, postgresStore, redisStore, type SharedStore } from "./support/backends.js";
import { exited, printed, type RunningChild, runChild, startChild } from "./support/child-processes.js";
import { chooseSeed, seededRandom } from "./support/seeded-random.js";
import { usePostgres } from "./support/test-postgres.js";
import { useRedis } from "./support/test-redis.js";

/** Rounds of two writers, each killed at its own random moment: 50 kills per backend. */
const ROUNDS = 25;
/**
 * fs with `durability: "batch"` runs the same kills in fewer rounds (16 kills) to keep the file's run time
 * down: it exercises the same writer code with the flushes left out, so what it adds is that an append
 * acknowledged before its bytes were flushed survives the process (not the machine) dying. Its writers are
 * fast, so the thread grows quickly and every round's check reads more of it: the cost grows faster than
 * the rounds.
 */
const BATCH_ROUNDS = 8;
const WRITERS_PER_ROUND = 2;
/** Kill moments are drawn from [0, MAX_KILL_DELAY_MS) after the writer said it was ready. */
const MAX_KILL_DELAY_MS = 150;

const redis = useRedis();
const postgres = usePostgres();

/** What a crash writer appends as its `index`-th batch: 1–3 messages, text of varying length. */
function expectedBatch(writer: string, index: number): { ids: string[]; text: (id: string) => string } {
  const ids = Array.from({ length: 1 + (index % 3) }, (_, part) => `${writer}-${index}-${part}`);
  return { ids, text: (id) => `${id} `.repeat(1 + ((index * 7) % 60)) };
}

/** The acknowledged batches in a writer's output, counting whole lines only. */
function acknowledged(child: RunningChild): string[][] {
  return child.output
    .lines()
    .filter((line) => line.startsWith("ack "))
    .map((line) => line.slice(4).split(" "));
}

/**
 * Checks everything a crash may not break, reading only what was added since its last check (a new check
 * reads everything again): ids once each, every acknowledged id present, every batch whole or
 * absent, each writer's batches in order, texts exactly as sent, one revision per commit.
 */
class ThreadCheck {
  readonly #seen = new Set<string>();
  readonly #lastIndex = new Map<string, number>();
  #lastId: string | undefined;
  #ackedChecked = 0;
  batches = 0;

  async check(thread: Thread, acked: string[][]): Promise<void> {
    const added = await thread.messages(this.#lastId === undefined ? {} : { after: this.#lastId });
    for (const message of added) {
      expect(this.#seen.has(message.id), `${message.id} is not duplicated`).toBe(false);
      this.#seen.add(message.id);
      this.#lastId = message.id;
      if (message.id === "first") continue;
      const [writer, index, part] = message.id.split("-") as [string, string, string];
      const batch = expectedBatch(writer, Number(index));
      expect(message.contents).toEqual([{ type: "text", text: batch.text(message.id) }]);
      if (part !== "0") continue;
      this.batches++;
      expect(Number(index), `${writer}'s batches are in order`).toBeGreaterThan(
        this.#lastIndex.get(writer) ?? -1,
      );
      this.#lastIndex.set(writer, Number(index));
    }
    for (const batch of acked.slice(this.#ackedChecked))
      for (const id of batch) expect(this.#seen.has(id), `acknowledged ${id} is present`).toBe(true);
    this.#ackedChecked = acked.length;
    // A batch is one commit, so all of it arrives in one read.
    const arrived = new Set(added.map((message) => message.id));
    for (const id of arrived) {
      if (id === "first") continue;
      const [writer, index] = id.split("-") as [string, string];
      for (const part of expectedBatch(writer, Number(index)).ids)
        expect(arrived.has(part), `${part} of a landed batch is present`).toBe(true);
    }
    await thread.refresh();
    // One revision per commit (the first message, then each batch): no half-commit was counted.
    expect(thread.revision).toBe(this.batches + 1);
    // The log ends where this check stopped reading: nothing was cut off its tail since.
    expect((await thread.messages({ last: 1 }))[0]?.id).toBe(this.#lastId);
  }

  get size(): number {
    return this.#seen.size;
  }
}

/** An fs store whose URL asks for `durability: "batch"`, so every process that opens it writes without fsync. */
async function batchFileStore(name: string): Promise<SharedStore> {
  const shared = await fileStore(name);
  return { ...shared, url: `${shared.url}?durability=batch` };
}

describe.each([
  ["fs", () => fileStore("crashes"), ROUNDS],
  ["fs (durability=batch)", () => batchFileStore("crashes-batch"), BATCH_ROUNDS],
  ["redis", async () => redisStore(redis.url(), "crashes"), ROUNDS],
  ["postgres", async () => postgresStore(postgres.url(), "crashes"), ROUNDS],
] as Array<[string, () => Promise<SharedStore>, number]>)(
  "%s: writers killed with SIGKILL",
  (name, open, rounds) => {
    it(`keeps every acknowledged append through ${rounds * WRITERS_PER_ROUND} kills at random moments`, async () => {
      const seed = chooseSeed();
      const random = seededRandom(seed);
      const shared = await open();
      const creator = await openStore(shared.url);
      await (await creator.create({ id: "survivor" })).append({ id: "first", role: "user", text: "0" });
      await creator.close();

      const acked: string[][] = [];
      const moments: number[] = [];
      const progress = new ThreadCheck();
      for (let round = 0; round < rounds; round++) {
        const writers = Array.from({ length: WRITERS_PER_ROUND }, (_, slot) =>
          startChild("crash-writer.ts", [shared.url, "survivor", `r${round}w${slot}`]),
        );
        await Promise.all(writers.map((writer) => printed(writer, "ready")));
        // Each writer dies at its own moment, so kills also land while the other holds the thread.
        await Promise.all(
          writers.map(async (writer) => {
            const delay = random() * MAX_KILL_DELAY_MS;
            moments.push(Math.round(delay));
            await new Promise((resolve) => setTimeout(resolve, delay));
            writer.process.kill("SIGKILL");
            expect(await exited(writer.process)).toBeNull();
          }),
        );
        for (const writer of writers) acked.push(...acknowledged(writer));
        // A statement a killed writer sent may still commit on a server after its process is gone; the check
        // reads messages and then the revision, so it waits for that first.
        await shared.settled?.();
        // The thread loads after every round, with everything acknowledged and nothing torn.
        const reader = await openStore(shared.url);
        await progress.check(await reader.get("survivor"), acked);
        await reader.close();
      }
      expect(acked.length).toBeGreaterThan(rounds);

      // Another process reads the same thread, and a new writer carries on after the last kill.
      const store = await openStore(shared.url);
      const thread = await store.get("survivor");
      // Once more in full: nothing checked in an earlier round changed since.
      const full = new ThreadCheck();
      await full.check(thread, acked);
      expect(full.size).toBe(progress.size);
      const before = (await thread.messages()).map((message) => message.id);
      const elsewhere = (await runChild("read-thread.ts", [shared.url, "survivor"]))
        .trim()
        .split("\n")
        .slice(0, -1);
      expect(elsewhere).toEqual(before);
      await thread.append({ id: "after", role: "user", text: "after the crashes" });
      expect((await thread.messages({ last: 1 }))[0]?.id).toBe("after");
      expect(await thread.messages()).toHaveLength(before.length + 1);
      await store.close();
      console.info(
        `${name}: seed ${seed}; ${moments.length} kills at ${Math.min(...moments)}–${Math.max(...moments)} ms after ready ` +
          `(median ${moments.sort((a, b) => a - b)[moments.length >> 1]} ms); ${acked.length} acknowledged batches, ` +
          `${full.batches} batches landed, ${before.length} messages`,
      );
      await shared.cleanup();
    });
  },
);

describe("postgres: a killed writer's last statement", () => {
  it("commits after the writer's process is gone, and settled() waits for it", async () => {
    const shared = postgresStore(postgres.url(), "last-statement");
    const schema = new URL(shared.url).searchParams.get("schema") as string;
    const creator = await openStore(shared.url);
    await (await creator.create({ id: "survivor" })).append({ id: "first", role: "user", text: "0" });
    await creator.close();
    // Another session holds the thread's row, so the writer's first append waits for it on the server.
    const holder = new pg.Client(postgres.url());
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT revision FROM "${schema}".skein_records FOR UPDATE`);
      const writer = startChild("crash-writer.ts", [shared.url, "survivor", "w"]);
      await printed(writer, "ready");
      const waiting = async () =>
        (
          await holder.query(
            "SELECT count(*)::int AS backends FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [schema],
          )
        ).rows[0].backends;
      while ((await waiting()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      writer.process.kill("SIGKILL");
      expect(await exited(writer.process)).toBeNull();
      expect(acknowledged(writer)).toEqual([]);

      let settled = false;
      const settling = shared.settled().then(() => {
        settled = true;
      });
      // After a round trip of the holder's, which a settled() that waited for nothing would have resolved
      // within: the writer's backend still waits on the server, so settled() has not resolved.
      expect(await waiting()).toBe(1);
      expect(settled).toBe(false);
      await holder.query("COMMIT");
      await settling;
    } finally {
      await holder.end();
    }

    // The append the dead writer sent landed, whole, with its revision.
    const store = await openStore(shared.url);
    const thread = await store.get("survivor");
    expect(thread.revision).toBe(2);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["first", "w-0-0"]);
    await store.close();
    await shared.cleanup();
  });
});

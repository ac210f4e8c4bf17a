import { openStore, ThreadNotFoundError, type ThreadStore } from "@skein/thread-core";
import type { LogDriver } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { fileStore, postgresStore, redisStore, type SharedStore } from "./support/backends.js";
import { exited, printed, startChild, until } from "./support/child-processes.js";
import { usePostgres } from "./support/test-postgres.js";
import { useRedis } from "./support/test-redis.js";

const redis = useRedis();
const postgres = usePostgres();

const DOOMED = 120;
const KEPT = 30;
const FORKED = 10;
const PAST = "2020-01-01T00:00:00.000Z";

/** Every record id the driver holds, expired or not: what is really left in the store. */
async function storedIds(store: ThreadStore): Promise<string[]> {
  const driver = (store as unknown as { driver: LogDriver }).driver;
  const ids: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await driver.list({ limit: 500, ...(after === undefined ? {} : { after }) });
    ids.push(...page.map((item) => item.id));
    if (page.length < 500) return ids.sort();
    after = page[page.length - 1]?.id;
  }
}

/** Doomed threads (past their expiresAt), forks of some of them, and threads that never expire. */
async function seed(store: ThreadStore): Promise<void> {
  for (let index = 0; index < DOOMED; index += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, offset) => {
        const id = `doomed-${index + offset}`;
        const thread = await store.create({ id });
        await thread.append([
          { id: `${id}-a`, role: "user", text: `${id} asks` },
          { id: `${id}-b`, role: "assistant", text: `${id} answers` },
        ]);
        if (index + offset < FORKED) await thread.fork({ id: `fork-${index + offset}` });
        await thread.update({ expiresAt: PAST });
      }),
    );
  }
  for (let index = 0; index < KEPT; index++) {
    const thread = await store.create({ id: `kept-${index}` });
    await thread.append({ id: `kept-${index}-a`, role: "user", text: "stays" });
  }
}

const staying = [
  ...Array.from({ length: FORKED }, (_, index) => `fork-${index}`),
  ...Array.from({ length: KEPT }, (_, index) => `kept-${index}`),
].sort();

describe.each([
  ["fs", () => fileStore("sweep-kills")],
  ["redis", async () => redisStore(redis.url(), "sweep-kills")],
  ["postgres", async () => postgresStore(postgres.url(), "sweep-kills")],
] as Array<[string, () => Promise<SharedStore> | SharedStore]>)(
  "%s: a sweep killed part way",
  (_name, make) => {
    it("loses nothing that should stay, and a second sweep leaves nothing that should go", async () => {
      const shared = await make();
      const store = await openStore(shared.url);
      try {
        await seed(store);
        const child = startChild("sweeper.ts", [shared.url, "10"]);
        await printed(child, "ready");
        // Killed once it has deleted some but (batches of 10 among 120) not all.
        await until(
          () => child.output.lines().some((line) => line.startsWith("deleted ")),
          "a batch",
          90_000,
          child,
        );
        child.process.kill("SIGKILL");
        await exited(child.process);
        await shared.settled?.();
        const done = child.output.lines().find((line) => line.startsWith("done "));
        const left = await storedIds(store);
        if (done === undefined) expect(left.length).toBeGreaterThan(staying.length);

        // Expired threads are gone for readers whether or not the killed sweep reached them.
        expect(
          await store.list({ limit: 1000 }).then((page) => page.items.map((item) => item.id).sort()),
        ).toEqual(staying);
        expect(await store.get("doomed-119").catch((error) => error)).toBeInstanceOf(ThreadNotFoundError);

        const report = await store.sweep();
        expect(report.deleted).toBe(left.length - staying.length);
        expect(await storedIds(store)).toEqual(staying);
        expect((await store.sweep()).examined).toBe(0);
        // Forks keep the history they shared with their deleted parents; the others are untouched.
        for (let index = 0; index < FORKED; index++) {
          const fork = await store.get(`fork-${index}`);
          expect((await fork.messages()).map((message) => message.id)).toEqual([
            `doomed-${index}-a`,
            `doomed-${index}-b`,
          ]);
        }
        expect((await (await store.get("kept-7")).messages()).map((message) => message.id)).toEqual([
          "kept-7-a",
        ]);
      } finally {
        await store.close();
        await shared.cleanup();
      }
    });
  },
);

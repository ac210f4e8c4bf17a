import { fileURLToPath } from "node:url";
import { openStore, type ThreadStore } from "@skein/thread-core";
import { markedThread } from "@skein/thread-core/testing";
import { describe, expect, it } from "vitest";
import { fileStore } from "./support/backends.js";
import { exited, startChild } from "./support/child-processes.js";
import { filesHolding } from "./support/files-holding.js";
import { chooseSeed, seededRandom } from "./support/seeded-random.js";

// Issue 40 on fs: a process killed inside a delete, after the thread's record went and before its segments
// were released (`kill-in-release.ts` kills it at a seeded release, just before or just after it), must leave
// nothing a rerun of the sweep or the erasure cannot find: every file under the store is scanned for a
// marker planted in the doomed threads, with no exclusions, and what should stay is read back whole.

const DOOMED = 16;
const PAST = "2020-01-01T00:00:00.000Z";

/** A seeded kill point: the n-th release of a thread's segment reference, just before or just after it. */
function killPoint(seed: number): { at: string; describe: string } {
  const random = seededRandom(seed);
  // Each marked thread holds references to at least two segments (its rollback made a second head), so
  // the first DOOMED releases all fall inside the run, and a kill there leaves deletes to finish.
  const count = 1 + Math.floor(random() * DOOMED);
  const when = random() < 0.5 ? "before" : "after";
  return { at: `${count}:${when}`, describe: `seed ${seed}: killed ${when} release ${count}` };
}

/** Threads that must come through whole: forks of expired unmarked parents, and others' threads. */
async function seedKept(store: ThreadStore): Promise<void> {
  for (let index = 0; index < 3; index++) {
    const parent = await store.create({ id: `parent-${index}`, owner: "keeper" });
    await parent.append([
      { id: `parent-${index}-a`, role: "user", text: "shared question" },
      { id: `parent-${index}-b`, role: "assistant", text: "shared answer" },
    ]);
    const fork = await parent.fork({ id: `fork-${index}` });
    await fork.append({ id: `fork-${index}-c`, role: "user", text: "the fork's own" });
    await parent.update({ expiresAt: PAST });
  }
  const kept = await store.create({ id: "kept", owner: "keeper" });
  await kept.append({ id: "kept-a", role: "user", text: "stays" });
}

async function expectKeptWhole(store: ThreadStore): Promise<void> {
  for (let index = 0; index < 3; index++) {
    const fork = await store.get(`fork-${index}`);
    expect((await fork.messages()).map((message) => message.id)).toEqual([
      `parent-${index}-a`,
      `parent-${index}-b`,
      `fork-${index}-c`,
    ]);
  }
  expect((await (await store.get("kept")).messages()).map((message) => message.id)).toEqual(["kept-a"]);
}

async function killedChild(script: string, args: string[], at: string): Promise<void> {
  const child = startChild(script, args, { SKEIN_FAULTS_KILL_AT_RELEASE: at });
  child.process.stdin?.end();
  await exited(child.process);
  expect(child.process.signalCode, `the child was to kill itself at ${at}: ${child.output.stderr()}`).toBe(
    "SIGKILL",
  );
}

describe("fs: a process killed between a thread's record removal and its segments' release", () => {
  it("leaves nothing of an expired thread once the sweep is run again", async () => {
    const shared = await fileStore("release-kills-sweep");
    const seed = chooseSeed();
    const marker = `release-kill-sweep-${seed}`;
    const point = killPoint(seed);
    const store = await openStore(shared.url);
    try {
      for (let index = 0; index < DOOMED; index++) {
        const thread = await markedThread(store, `doomed-${index}`, "doomed-owner", marker);
        await thread.update({ expiresAt: PAST });
      }
      await seedKept(store);
      expect((await filesHolding(fileURLToPath(shared.url), marker)).length).toBeGreaterThan(0);

      await killedChild("sweeper.ts", [shared.url, "4"], point.at);
      const report = await store.sweep();
      expect(report.deleted, point.describe).toBeGreaterThan(0);
      expect((await store.sweep()).examined).toBe(0);
      expect((await store.list({ limit: 100 })).items.map((item) => item.id).sort()).toEqual([
        "fork-0",
        "fork-1",
        "fork-2",
        "kept",
      ]);
      await expectKeptWhole(store);
      expect(await filesHolding(fileURLToPath(shared.url), marker), point.describe).toEqual([]);
    } finally {
      await store.close();
      await shared.cleanup();
    }
  }, 180_000);

  it("leaves nothing of the owner once the erasure is run again", async () => {
    const shared = await fileStore("release-kills-erase");
    const seed = chooseSeed();
    const marker = `release-kill-erase-${seed}`;
    const point = killPoint(seed);
    const store = await openStore(shared.url);
    try {
      for (let index = 0; index < DOOMED; index++) {
        await markedThread(index % 2 ? store : store.scope("tenant"), `victim-${index}`, "victim", marker);
      }
      await seedKept(store);
      expect((await filesHolding(fileURLToPath(shared.url), marker)).length).toBeGreaterThan(0);

      await killedChild("erasing-child.ts", [shared.url, "victim"], point.at);
      const report = await store.erase({ owner: "victim" });
      expect(report.threads, point.describe).toBeGreaterThan(0);
      expect((await store.erase({ owner: "victim" })).threads).toBe(0);
      await expectKeptWhole(store);
      expect(await filesHolding(fileURLToPath(shared.url), marker), point.describe).toEqual([]);
    } finally {
      await store.close();
      await shared.cleanup();
    }
  }, 180_000);

  it("leaves nothing of the thread once its delete is run again", async () => {
    const shared = await fileStore("release-kills-delete");
    const seed = chooseSeed();
    const marker = `release-kill-delete-${seed}`;
    const when = seededRandom(seed)() < 0.5 ? "before" : "after";
    const store = await openStore(shared.url);
    try {
      await markedThread(store, "doomed", "doomed-owner", marker);
      await seedKept(store);
      await killedChild("deleting-child.ts", [shared.url, "doomed"], `1:${when}`);
      expect(await store.delete("doomed")).toBe(false);
      await expectKeptWhole(store);
      expect(await filesHolding(fileURLToPath(shared.url), marker), `seed ${seed}: ${when}`).toEqual([]);
    } finally {
      await store.close();
      await shared.cleanup();
    }
  }, 180_000);
});

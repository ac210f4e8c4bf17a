import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { type Checkpoint, PointNotFoundError, type Thread } from "@skein/thread-core";
import { eventSegments } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";
import { threadReferrer } from "../src/segments/segment-directories.js";

/** A small deterministic generator (mulberry32), so that a failing sequence can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every segment the thread's record and history point at whose refs/ lacks the thread's reference. */
async function unreferenced(layout: StoreLayout, thread: Thread): Promise<string[]> {
  const record = JSON.parse(await readFile(layout.recordPath(thread.id), "utf8")) as { head: string };
  // An event of a kind this version does not know points at nothing it can tell (`eventSegments`: undefined).
  const points = (await thread.history()).flatMap((event) => eventSegments(event) ?? []);
  const pointed = new Set([record.head, ...points]);
  const referrer = threadReferrer(thread.id);
  return [...pointed].filter(
    (segment) => !existsSync(join(layout.segmentDirectory(segment), "refs", referrer)),
  );
}

/**
 * A thread "p" of "a", "b" gone back to "a" and given "c" (two heads), and its fork "n": the fork points at
 * the parent's second head (its fork point) and its own; its head's chain goes on to the parent's first
 * segment, which holds "a" and which the fork has never pointed at.
 */
async function forkOffRollback(store: ReturnType<typeof fsStore>): Promise<{ parent: Thread; fork: Thread }> {
  const parent = await store.create({ id: "p" });
  await parent.append([
    { id: "a", role: "user", text: "a" },
    { id: "b", role: "user", text: "b" },
  ]);
  await parent.rollback("a", { append: [{ id: "c", role: "user", text: "c" }] });
  return { parent, fork: await parent.fork({ id: "n" }) };
}

describe("a thread's segment references", () => {
  // A change looks up what it newly points at among the newest events first (`addedSegments`): whatever
  // order rollbacks, checkpoints and appends come in, every segment the record or its history points at
  // keeps the thread's reference, so that nothing it can reach is reclaimed.
  it.each([1, 2, 3, 4])("cover every segment the record and its history point at (seed %i)", async (seed) => {
    const directory = await temporaryDirectory();
    const layout = new StoreLayout(directory);
    const store = fsStore({ directory });
    const next = random(seed);
    const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)] as T;
    const first = await store.create({ id: `t${seed}` });
    const threads: Thread[] = [first];
    const checkpoints = new Map<Thread, Checkpoint[]>([[first, []]]);
    const messageIds: string[] = [];
    for (let step = 0; step < 80; step++) {
      const thread = pick(threads);
      const choice = next();
      if (choice < 0.3 || messageIds.length === 0) {
        const [added] = await thread.append({ role: "user", text: `step ${step}` });
        messageIds.push(added?.id as string);
      } else if (choice < 0.45) checkpoints.get(thread)?.push(await thread.checkpoint());
      else if (choice < 0.6 && (checkpoints.get(thread)?.length ?? 0) > 0) {
        await thread.rollback(pick(checkpoints.get(thread) as Checkpoint[]));
      } else if (choice < 0.85) {
        // A message of another thread or of a head rolled away from is not in the thread: then it cannot
        // be gone back to. One its head continues from, further down the chain, can.
        await thread.rollback(pick(messageIds)).catch((error: unknown) => {
          if (!(error instanceof PointNotFoundError)) throw error;
        });
      } else {
        const at = pick(messageIds);
        const child = await thread.fork({ id: `t${seed}.${step}`, at }).catch(async (error: unknown) => {
          if (!(error instanceof PointNotFoundError)) throw error;
          return thread.fork({ id: `t${seed}.${step}` });
        });
        threads.push(child);
        checkpoints.set(child, []);
      }
      for (const each of threads) expect(await unreferenced(layout, each)).toEqual([]);
    }
    // And the references are all the threads hold: deleting them reclaims every segment.
    for (const thread of threads) await thread.delete();
    expect(readdirSync(layout.segments)).toEqual([]);
    await store.close();
  });

  it("references a segment the thread first points at by going back to it down its head's chain", async () => {
    const directory = await temporaryDirectory();
    const layout = new StoreLayout(directory);
    const store = fsStore({ directory });
    const { parent, fork } = await forkOffRollback(store);
    expect(await unreferenced(layout, fork)).toEqual([]);
    await fork.rollback("a");
    expect(await unreferenced(layout, fork)).toEqual([]);
    await parent.delete();
    expect((await fork.messages()).map((message) => message.id)).toEqual(["a"]);
    await fork.delete();
    expect(readdirSync(layout.segments)).toEqual([]);
    await store.close();
  });

  // `pointsAt` answers "known" for nearly every lookup from the newest events; a segment the thread never
  // pointed at is the one lookup that must read to the oldest event. Here the fork's history is longer than
  // any short cut would look (its fork event, then checkpoints, all on its own head), the segment gone back
  // to is only on its head's chain, and the rollback is made through another store, so the history comes
  // from the .events file rather than the caller's known record.
  it("references a segment first pointed at after a long history, read from the history file", async () => {
    const directory = await temporaryDirectory();
    const layout = new StoreLayout(directory);
    const store = fsStore({ directory });
    const { parent, fork } = await forkOffRollback(store);
    for (let index = 0; index < 12; index++) {
      await fork.append({ id: `n${index}`, role: "user", text: `n${index}` });
      await fork.checkpoint();
    }
    const other = fsStore({ directory });
    const again = await other.get("n");
    await again.rollback("a");
    expect(await unreferenced(layout, again)).toEqual([]);
    await other.close();
    await parent.delete();
    await fork.delete();
    expect(readdirSync(layout.segments)).toEqual([]);
    await store.close();
  });

  it("goes back past a history event of a kind a later version wrote", async () => {
    const directory = await temporaryDirectory();
    const layout = new StoreLayout(directory);
    let store = fsStore({ directory });
    await forkOffRollback(store);
    await store.close();
    // The fork's history is still inline in its record (a new thread's): an event of an unknown kind goes first.
    const path = layout.recordPath("n");
    const record = JSON.parse(await readFile(path, "utf8")) as { events: Array<{ at: string }> };
    const at = record.events[0]?.at;
    record.events = [
      { kind: "note", text: "from a later version", at, revision: 0 } as never,
      ...record.events,
    ];
    writeFileSync(path, JSON.stringify(record));
    store = fsStore({ directory });
    const fork = await store.get("n");
    await fork.rollback("a");
    expect((await fork.messages()).map((message) => message.id)).toEqual(["a"]);
    expect(await unreferenced(layout, fork)).toEqual([]);
    await store.close();
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { skein, skeinOk, spawnSkein } from "./run-skein.js";
import { threadsWithHistory } from "./thread-fixtures.js";

const THREADS = 200;
const directory = mkdtempSync(join(tmpdir(), "skein-cli-migrate-"));
const run = Date.now().toString(36);
let fixture = "";
let fixtureFile = "";

beforeAll(async () => {
  fixture = await threadsWithHistory(THREADS);
  fixtureFile = join(directory, "threads.jsonl");
  writeFileSync(fixtureFile, fixture);
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Exports every thread of a store (in a scope) and checks each id appears once. */
async function exportAll(store: string, scope: string): Promise<string> {
  const exported = await skeinOk(["export", "--all", "--scope", scope], { store });
  const ids = exported
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line).id);
  expect(new Set(ids).size).toBe(ids.length);
  return exported;
}

describe("migrate", () => {
  it(`moves ${THREADS} threads with forks and checkpoints file → redis → file, byte for byte`, async () => {
    // One scope on every store: the run neither reads nor disturbs what else a shared Redis holds.
    const scope = `cli-migrate-${run}`;
    const source = `file:${join(directory, "source")}`;
    const redis = inject("redisUrl");
    const back = `file:${join(directory, "back")}`;
    await skeinOk(["import", fixtureFile, "--scope", scope], { store: source });
    expect(await exportAll(source, scope)).toBe(fixture);

    const there = JSON.parse(
      await skeinOk(["migrate", "--from", source, "--to", redis, "--scope", scope, "--json"]),
    );
    expect(there).toMatchObject({
      total: THREADS,
      copied: THREADS,
      unchanged: 0,
      differing: [],
      vanished: [],
    });
    const again = JSON.parse(
      await skeinOk(["migrate", "--from", source, "--to", redis, "--scope", scope, "--json"]),
    );
    expect(again).toMatchObject({ total: THREADS, copied: 0, unchanged: THREADS });
    const home = JSON.parse(
      await skeinOk(["migrate", "--from", redis, "--to", back, "--scope", scope, "--json"]),
    );
    expect(home).toMatchObject({ total: THREADS, copied: THREADS });
    console.info(
      `migrate ${THREADS} threads: file → redis ${(THREADS / there.seconds).toFixed(0)} threads/s, redis → file ${(THREADS / home.seconds).toFixed(0)} threads/s`,
    );

    expect(await exportAll(redis, scope)).toBe(fixture);
    expect(await exportAll(back, scope)).toBe(fixture);
    // Forks share their parents' history again: the log of a fork reaches into its parent's messages.
    expect(await skeinOk(["log", "thread-0001-fork", "--scope", scope], { store: back })).toContain(
      "(forked from thread-0001)",
    );
    await deleteAll(redis, scope);
  });

  it("killed halfway, then run again: completes, no duplicates, equal exports", async () => {
    const scope = `cli-migrate-killed-${run}`;
    const source = `file:${join(directory, "killed-source")}`;
    const redis = inject("redisUrl");
    await skeinOk(["import", fixtureFile, "--scope", scope], { store: source });

    // One thread at a time, so the kill lands between threads at about half, not after the end.
    const child = spawnSkein([
      "migrate",
      "--from",
      source,
      "--to",
      redis,
      "--scope",
      scope,
      "--concurrency",
      "1",
    ]);
    const progress: string[] = [];
    const killedAt = await new Promise<number>((resolve, reject) => {
      let buffered = "";
      child.stderr.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        for (const match of buffered.matchAll(/migrate: (\d+)\/\d+ threads \((\d+)%\)/g)) {
          progress.push(match[0]);
          if (Number(match[2]) >= 50 && child.exitCode === null) {
            child.kill("SIGKILL");
            resolve(Number(match[1]));
          }
        }
        buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
      });
      child.on("exit", (code, signal) => {
        if (signal !== "SIGKILL")
          reject(new Error(`migrate ended (${code}) before it could be killed: ${progress.join("; ")}`));
      });
    });
    expect(killedAt).toBeLessThan(THREADS);
    await new Promise((resolve) => child.once("close", resolve));

    const partial = await skeinOk(["ls", "--json", "--limit", "1000", "--scope", scope], { store: redis });
    const copiedBefore = JSON.parse(partial).items.length;
    expect(copiedBefore).toBeGreaterThanOrEqual(killedAt);
    expect(copiedBefore).toBeLessThan(THREADS);

    const resumed = await skein(["migrate", "--from", source, "--to", redis, "--scope", scope]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/migrate: 200\/200 threads \(100%\)/);
    const summary = resumed.stdout.trim();
    expect(summary).toMatch(
      new RegExp(
        `^migrated ${THREADS} threads from file:.* to redis://.*: \\d+ copied, \\d+ already there in`,
      ),
    );
    const [, copied, unchanged] = /: (\d+) copied, (\d+) already there/.exec(summary) ?? [];
    expect(Number(copied) + Number(unchanged)).toBe(THREADS);
    expect(Number(unchanged)).toBe(copiedBefore);

    console.info(
      `migrate killed at ${killedAt}/${THREADS} (${copiedBefore} complete in the destination); the second run copied ${copied} and skipped ${unchanged}`,
    );
    const listed = JSON.parse(
      await skeinOk(["ls", "--json", "--limit", "1000", "--scope", scope], { store: redis }),
    );
    expect(listed.items).toHaveLength(THREADS);
    expect(await exportAll(redis, scope)).toBe(await exportAll(source, scope));
    await deleteAll(redis, scope);
  });
});

describe("migrate between stores of one kind", () => {
  it("copies a workflow, which needs its sub-thread copied first, file → file", async () => {
    const source = `file:${join(directory, "workflow-source")}`;
    const target = `file:${join(directory, "workflow-target")}`;
    await skeinOk(["create", "--type", "workflow", "--id", "trip-7"], { store: source });
    await skeinOk(["append", "trip-7", "--text", "Plan a day in Lisbon."], { store: source });
    const report = JSON.parse(await skeinOk(["migrate", "--from", source, "--to", target, "--json"]));
    expect(report).toMatchObject({ total: 2, copied: 2, failed: [] });
    const copied = JSON.parse(await skeinOk(["show", "trip-7", "--json"], { store: target }));
    expect(copied.type).toBe("workflow");
    expect(copied.messages.map((message: { contents: unknown[] }) => message.contents)).toEqual([
      [{ type: "text", text: "Plan a day in Lisbon." }],
    ]);
  });
});

async function deleteAll(store: string, scope: string): Promise<void> {
  const { items } = JSON.parse(
    await skeinOk(["ls", "--json", "--limit", "1000", "--scope", scope], { store }),
  );
  await skeinOk(["delete", ...items.map((item: { id: string }) => item.id), "--scope", scope], { store });
}

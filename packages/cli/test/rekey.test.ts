import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type ThreadStore } from "@skein/thread-core";
import { describe, expect, inject, it } from "vitest";
import { skein, spawnSkein } from "./run-skein.js";

const OLD = "2026-06";
const NEW = "2026-12";
const THREADS = 30;
const MESSAGES = 20;

const directory = mkdtempSync(join(tmpdir(), "skein-rekey-"));
const oldKey = randomBytes(32);
const newKey = randomBytes(32);

function keysFile(name: string, keys: Record<string, Buffer>, current: string): string {
  const file = join(directory, name);
  const encoded = Object.fromEntries(Object.entries(keys).map(([id, key]) => [id, key.toString("base64")]));
  writeFileSync(file, JSON.stringify({ current, keys: encoded }), { mode: 0o600 });
  return file;
}

const oldOnly = keysFile("old.json", { [OLD]: oldKey }, OLD);
const rotated = keysFile("rotated.json", { [OLD]: oldKey, [NEW]: newKey }, NEW);
const newOnly = keysFile("new.json", { [NEW]: newKey }, NEW);

async function seed(scope: string): Promise<void> {
  const root = await openStore(inject("redisUrl"), { encryption: { keys: { [OLD]: oldKey }, current: OLD } });
  const store: ThreadStore = root.scope(scope);
  try {
    for (let thread = 0; thread < THREADS; thread++) {
      const created = await store.create({ id: `t${thread}`, metadata: { n: thread } });
      await created.append(
        Array.from({ length: MESSAGES }, (_, index) => ({
          id: `m${index}`,
          role: "user" as const,
          text: `thread ${thread} says ${index}`,
        })),
      );
    }
  } finally {
    await root.close();
  }
}

const run = (scope: string, args: string[]) =>
  skein([...args, "--scope", scope], { store: inject("redisUrl") });

describe("skein rekey", () => {
  it("moves every unit to the current key; afterwards the old key can be dropped from the keys file", async () => {
    const scope = `rekey-${Date.now().toString(36)}`;
    await seed(scope);
    // Read with the old key alone: it works now, and fails to decrypt nothing.
    const before = await run(scope, ["show", "t3", "--keys-file", oldOnly]);
    expect(before.code, before.stderr).toBe(0);
    const result = await run(scope, ["rekey", "--keys-file", rotated, "--batch", "7", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ current: NEW, records: THREADS, complete: true, remaining: {} });
    // Every message, and each thread's metadata, context and the context's authenticated end.
    expect(report.rewritten[OLD]).toBe(THREADS * (MESSAGES + 3));
    const after = await run(scope, ["show", "t3", "--keys-file", newOnly]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain("thread 3 says 19");
    expect(after.stdout).toEqual(before.stdout);
    const again = await run(scope, ["rekey", "--keys-file", rotated]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("nothing needed re-encrypting");
    expect(again.stdout).toContain("nothing uses an old key any more");
  }, 120_000);

  it("killed with SIGKILL in the middle, a second run finishes and reports nothing on the old key", async () => {
    const scope = `rekey-kill-${Date.now().toString(36)}`;
    await seed(scope);
    const child = spawnSkein(["rekey", "--keys-file", rotated, "--batch", "1", "--scope", scope], {
      store: inject("redisUrl"),
    });
    child.stdin.end();
    let progress = 0;
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        progress += chunk
          .toString("utf8")
          .split("\n")
          .filter((line) => line.startsWith("rekey:")).length;
        // A few records in: the run is surely in the middle of the scope.
        if (progress >= 3 && child.exitCode === null) child.kill("SIGKILL");
      });
      child.on("error", reject);
      child.on("exit", (_code, signal) =>
        signal === "SIGKILL" ? resolve() : reject(new Error(`rekey ended before it was killed (${signal})`)),
      );
    });
    const rerun = await run(scope, ["rekey", "--keys-file", rotated, "--json"]);
    expect(rerun.code, rerun.stderr).toBe(0);
    const report = JSON.parse(rerun.stdout);
    expect(report.complete).toBe(true);
    expect(report.remaining).toEqual({});
    // The kill left part of the scope on the old key: the second run moved it.
    expect(report.rewritten[OLD]).toBeGreaterThan(0);
    expect(report.rewritten[OLD]).toBeLessThan(THREADS * (MESSAGES + 3));
    for (const thread of [0, THREADS - 1]) {
      const shown = await run(scope, ["show", `t${thread}`, "--keys-file", newOnly]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`thread ${thread} says ${MESSAGES - 1}`);
    }
  }, 120_000);

  it("takes keys only from a file or the environment, and never prints one", async () => {
    const short = randomBytes(31).toString("base64");
    const bad = join(directory, "bad.json");
    writeFileSync(bad, JSON.stringify({ current: NEW, keys: { [NEW]: short } }));
    const refused = await skein(["ls", "--keys-file", bad], { store: inject("redisUrl") });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`field keys["${NEW}"] must be 32 bytes`);
    expect(refused.stderr).not.toContain(short);
    const flag = await skein(["ls", "--keys", newKey.toString("base64")], { store: inject("redisUrl") });
    expect(flag.code).toBe(2);
  });

  it("rekeys a file store in place; afterwards it reads with the new key alone", async () => {
    const store = `file:${join(directory, "files")}`;
    const created = await skein(["create", "--id", "kept", "--keys-file", oldOnly], { store });
    expect(created.code, created.stderr).toBe(0);
    const result = await skein(["rekey", "--keys-file", rotated, "--json"], { store });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ current: NEW, complete: true, remaining: {} });
    expect(report.rewritten[OLD]).toBeGreaterThan(0);
    const shown = await skein(["show", "kept", "--keys-file", newOnly], { store });
    expect(shown.code, shown.stderr).toBe(0);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@skein/thread-core";
import { ERASURE_MARKER, markedThread } from "@skein/thread-core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk, spawnSkein } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-erase-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The files under `root` whose bytes hold `text`. */
async function filesWith(root: string, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(text)) found.push(path.slice(root.length));
  }
  return found;
}

async function fill(path: string, count: number): Promise<void> {
  const store = await openStore(`file:${path}`);
  try {
    for (let index = 0; index < count; index++) {
      await markedThread(index % 2 ? store : store.scope("tenant-a"), `t-${index}`, "u-7");
    }
    const kept = await store.create({ id: "kept", owner: "u-8" });
    await kept.append({ id: "k1", role: "user", text: "stays" });
  } finally {
    await store.close();
  }
}

describe("skein erase", () => {
  it("refuses to run without --owner (exit 2) and reports zero for an unknown owner", async () => {
    const path = join(directory, "empty");
    await fill(path, 1);
    const refused = await skein(["erase"], { store: `file:${path}` });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--owner/);
    const report = JSON.parse(
      await skeinOk(["erase", "--owner", "nobody", "--json"], { store: `file:${path}` }),
    );
    expect(report).toMatchObject({ owner: "nobody", method: "deleted", threads: 0, messages: 0, bytes: 0 });
    // The text report says how the data went (the method), as the JSON one does.
    expect(await skeinOk(["erase", "--owner", "nobody"], { store: `file:${path}` })).toBe(
      'erased 0 threads of "nobody": 0 messages, 0 bytes (deleted)\n',
    );
  });

  it("erases an owner, killed halfway and run again, leaving no byte of theirs in any file", async () => {
    const path = join(directory, "killed");
    await fill(path, 240);
    expect((await filesWith(path, ERASURE_MARKER)).length).toBeGreaterThan(0);

    // Killed (SIGKILL) once it says it erased the first hundred: no chance to clean anything up.
    const child = spawnSkein(["erase", "--owner", "u-7"], { store: `file:${path}` });
    child.stdin.end();
    const killed = await new Promise<string>((resolve) => {
      let seen = "";
      child.stderr.on("data", (chunk: Buffer) => {
        seen += chunk.toString("utf8");
        if (/erased 100\/240/.test(seen)) child.kill("SIGKILL");
      });
      child.on("close", (_code, signal) => resolve(String(signal)));
    });
    expect(killed).toBe("SIGKILL");
    const store = await openStore(`file:${path}`);
    const left =
      (await store.count({ owner: "u-7" })) + (await store.scope("tenant-a").count({ owner: "u-7" }));
    await store.close();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(240);

    const rerun = await skein(["erase", "--owner", "u-7", "--json"], { store: `file:${path}` });
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).threads).toBe(left);
    expect(rerun.stderr).toMatch(/to erase/);
    const again = JSON.parse(await skeinOk(["erase", "--owner", "u-7", "--json"], { store: `file:${path}` }));
    expect(again.threads).toBe(0);
    // Known gap (issue 40, left open): a kill inside one thread's delete, after its record went and before
    // its segments were released, leaves those segments (and the lock's staged files) referenced by nothing.
    const orphans = /^\/(segments\/[^/]+\/messages\.jsonl|locks\/[^/]+\.staging\/[^/]+\.tmp)$/;
    expect((await filesWith(path, ERASURE_MARKER)).filter((file) => !orphans.test(file))).toEqual([]);
    expect((await filesWith(path, "u-7")).filter((file) => !orphans.test(file))).toEqual([]);
    expect(await skeinOk(["ls"], { store: `file:${path}` })).toMatch(/kept/);
  }, 240_000);
});

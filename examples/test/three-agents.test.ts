import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../three-agents/run.mjs", import.meta.url));
const run = async (...args: string[]) =>
  (await promisify(execFile)(process.execPath, [script, ...args])).stdout;
const directories: string[] = [];

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("three-agent workflow example", () => {
  it("is interrupted mid-step, then resumed from a second process without duplicates", async () => {
    const directory = mkdtempSync(join(tmpdir(), "skein-example-"));
    directories.push(directory);
    const url = `file://${directory}`;
    const first = await run(url, "--stop-after", "research");
    expect(first).toContain("created trip-plan: done [] running [] next [plan,research,write]");
    expect(first).toContain('stopping while "research" is still marked running');
    expect(first).not.toContain("finished");

    const second = await run(url);
    expect(second).toContain("resumed trip-plan: done [plan] running [research] next [write]");
    expect(second).toContain("finished: done [plan,research,write] running [] next []");
    expect(second).toContain("answer: A day in Lisbon: Belém Tower (10:00–17:30), then Alfama");
    // The re-run research step wrote its call and result again by id: still two messages, not four.
    expect(second).toMatch(/researcher: 2 messages/);
    expect(second).toMatch(/main: 2 messages/);

    const third = await run(url);
    expect(third).toContain("resumed trip-plan: done [plan,research,write] running [] next []");
  });

  it("runs in one go on the memory store", async () => {
    const output = await run("memory:");
    expect(output).toContain("finished: done [plan,research,write] running [] next []");
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres } from "../../../scripts/postgres-server.mjs";
import { skeinOk } from "./run-skein.js";
import { threadsWithHistory } from "./thread-fixtures.js";

const THREADS = 40;
const directory = mkdtempSync(join(tmpdir(), "skein-cli-migrate-postgres-"));
let postgres: { url: string; stop: () => Promise<void> } | undefined;

beforeAll(async () => {
  postgres = await startPostgres({ install: true });
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe("migrate to PostgreSQL", () => {
  it(`moves ${THREADS} threads with forks and checkpoints file → postgres → file, byte for byte`, async () => {
    const fixture = await threadsWithHistory(THREADS);
    const fixtureFile = join(directory, "threads.jsonl");
    writeFileSync(fixtureFile, fixture);
    const source = `file:${join(directory, "source")}`;
    const target = new URL(postgres?.url as string);
    target.searchParams.set("schema", `cli_migrate_${Date.now().toString(36)}`);
    const back = `file:${join(directory, "back")}`;
    await skeinOk(["import", fixtureFile], { store: source });

    const there = JSON.parse(await skeinOk(["migrate", "--from", source, "--to", target.href, "--json"]));
    expect(there).toMatchObject({ total: THREADS, copied: THREADS, differing: [], vanished: [] });
    const listed = JSON.parse(await skeinOk(["ls", "--json", "--limit", "1"], { store: target.href }));
    expect((listed.items ?? listed)[0].type).toBe("postgres");

    await skeinOk(["migrate", "--from", target.href, "--to", back, "--json"]);
    const exported = await skeinOk(["export", "--all"], { store: back });
    expect(exported).toBe(fixture);
  });
});

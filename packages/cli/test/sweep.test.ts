import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-sweep-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("skein sweep", () => {
  const store = `file:${join(directory, "store")}`;
  const ok = (args: string[]) => skeinOk(args, { store });
  const ids = async () => JSON.parse(await ok(["ls", "--json"])).items.map((item: { id: string }) => item.id);

  it("deletes what expired, by its own time or by --idle-for, with progress on stderr", async () => {
    await ok(["create", "--id", "past", "--expires-at", "2020-01-01T00:00:00Z"]);
    await ok(["create", "--id", "future", "--expires-at", "2999-01-01T00:00:00Z"]);
    await ok(["create", "--id", "plain"]);
    await ok(["append", "plain", "--text", "still here"]);
    // Expired threads are gone for readers before any sweep.
    expect(await ids()).toEqual(["future", "plain"]);

    const first = await skein(["sweep", "--json"], { store });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ deleted: 1, skipped: 0 });
    expect(first.stderr).toContain("sweep: 1 thread deleted");
    expect((await skein(["show", "past"], { store })).code).toBe(3);

    const idle = await skein(["sweep", "--idle-for", "1ms", "--batch", "1"], { store });
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain("deleted 2 expired threads");
    expect(await ids()).toEqual([]);
  });

  it("refuses a malformed duration before touching the store", async () => {
    await ok(["create", "--id", "kept"]);
    for (const [flag, value] of [
      ["--idle-for", "30x"],
      ["--max-age", "-1d"],
    ]) {
      const result = await skein(["sweep", `${flag}=${value}`], { store });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} `);
      expect(result.stderr).toContain("is not a duration");
    }
    expect(await ids()).toEqual(["kept"]);
  });
});

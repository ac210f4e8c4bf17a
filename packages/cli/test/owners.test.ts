import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-owners-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("owners and titles in the CLI", () => {
  const store = `file:${join(directory, "store")}`;
  const ok = (args: string[]) => skeinOk(args, { store });
  const ids = async (args: string[]) =>
    JSON.parse(await ok([...args, "--json"])).items.map((item: { id: string }) => item.id);

  it("create --owner --title, and ls by owner, newest first, by metadata, in pages", async () => {
    await ok([
      "create",
      "--id",
      "trip",
      "--owner",
      "u-7",
      "--title",
      "Trip to Lyon",
      "--metadata",
      '{"agent":"planner"}',
    ]);
    await ok([
      "create",
      "--id",
      "taxes",
      "--owner",
      "u-7",
      "--title",
      "Taxes",
      "--metadata",
      '{"agent":"writer","archived":false}',
    ]);
    await ok(["create", "--id", "other", "--owner", "u-8"]);
    await ok(["append", "trip", "--text", "three days, please"]);

    expect(await ids(["ls", "--owner", "u-7", "--order", "updated"])).toEqual(["trip", "taxes"]);
    expect(await ids(["ls", "--owner", "u-7", "--order", "created", "--asc"])).toEqual(["trip", "taxes"]);
    expect(await ids(["ls", "--owner", "u-7", "--where", "agent=planner"])).toEqual(["trip"]);
    expect(await ids(["ls", "--where", "archived=false", "--where", "agent=writer"])).toEqual(["taxes"]);
    const first = JSON.parse(
      await ok(["ls", "--owner", "u-7", "--order", "updated", "--limit", "1", "--json"]),
    );
    expect(first.items[0]).toMatchObject({
      id: "trip",
      owner: "u-7",
      title: "Trip to Lyon",
      messageCount: 1,
    });
    expect(
      await ids(["ls", "--owner", "u-7", "--order", "updated", "--limit", "1", "--cursor", first.cursor]),
    ).toEqual(["taxes"]);

    const table = await ok(["ls", "--owner", "u-7", "--order", "updated"]);
    expect(table).toMatch(/^ID +TYPE +OWNER +TITLE +UPDATED\ntrip +fs +u-7 +Trip to Lyon +\d{4}-/);
  });

  it("bad listing flags are usage errors (exit 2), a cursor of another listing too", async () => {
    const first = JSON.parse(
      await ok(["ls", "--owner", "u-7", "--order", "updated", "--limit", "1", "--json"]),
    );
    for (const args of [
      ["ls", "--order", "newest"],
      ["ls", "--asc", "--desc"],
      ["ls", "--where", "no-equals"],
      ["ls", "--owner", "x".repeat(300)],
      ["ls", "--owner", "u-8", "--order", "updated", "--cursor", first.cursor],
    ]) {
      const result = await skein(args, { store });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^skein: /);
    }
    // An owner the store refuses is invalid data (exit 5), and nothing is created.
    const refused = await skein(["create", "--id", "refused", "--owner", ""], { store });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("owner");
    expect(await ids(["ls"])).not.toContain("refused");
  });

  it("migrate keeps owners and titles", async () => {
    const copy = `file:${join(directory, "copy")}`;
    await skeinOk(["migrate", "--from", store, "--to", copy, "--quiet"]);
    const listed = JSON.parse(
      await skeinOk(["ls", "--owner", "u-7", "--order", "updated", "--json"], { store: copy }),
    );
    expect(listed.items.map((item: { id: string; title: string }) => [item.id, item.title])).toEqual([
      ["trip", "Trip to Lyon"],
      ["taxes", "Taxes"],
    ]);
  });
});

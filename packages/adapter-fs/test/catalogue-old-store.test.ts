import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";

describe("a store written before the catalogue", () => {
  it("opens, is marked format 3, and lists and counts from its records", async () => {
    const directory = join(await temporaryDirectory(), "store");
    const writer = fsStore({ directory });
    await writer.create({ id: "a", owner: "u", title: "First" });
    await new Promise((resolve) => setTimeout(resolve, 3));
    await writer.create({ id: "b", owner: "u" });
    await writer.create({ id: "c", owner: "v" });
    await new Promise((resolve) => setTimeout(resolve, 3));
    await (await writer.get("a")).append({ role: "user", text: "hi" });
    await writer.scope("tenant").create({ id: "a", owner: "u" });
    await writer.close();
    // As an earlier version leaves it: no catalogue, format 2.
    await rm(join(directory, "catalogue"), { recursive: true });
    const marker = join(directory, "skein-fs.json");
    await writeFile(marker, `${JSON.stringify({ format: "skein-fs", version: 2 })}\n`);

    const store = fsStore({ directory });
    const newest = await store.list({ owner: "u", order: "updated" });
    expect(newest.items.map((item) => [item.id, item.title, item.messageCount])).toEqual([
      ["a", "First", 1],
      ["b", undefined, 0],
    ]);
    expect(await store.count({ owner: "u" })).toBe(2);
    expect(await store.count({})).toBe(3);
    expect((await store.scope("tenant").list({ owner: "u" })).items.map((item) => item.id)).toEqual(["a"]);
    expect(JSON.parse(await readFile(marker, "utf8"))).toEqual({ format: "skein-fs", version: 3 });
    await store.close();
  });
});

import { mkdir, readdir, realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { InvalidThreadIdError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";

const HOSTILE_IDS = [
  "../x",
  "../../outside/escape",
  "/abs/path",
  "/",
  "C:\\Windows\\win.ini",
  "\\\\server\\share",
  "a/b\\c",
  "CON",
  "con",
  "Con",
  "con.json",
  "NUL",
  "lpt1",
  ".",
  "..",
  "...",
  ".hidden",
  "trailing. ",
  "Abc",
  "abc",
  "ABC",
  "%2e%2e",
  "%41bc",
  "x".repeat(256),
  "🧵".repeat(256),
  "é".repeat(256),
  "e\u0301",
  "é",
  '*?<>|":',
  "records",
  "segments/../records",
];

/** Every path under `directory`, files and directories. */
async function walk(directory: string): Promise<string[]> {
  const paths: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    paths.push(path);
    if (entry.isDirectory()) paths.push(...(await walk(path)));
  }
  return paths;
}

describe("hostile ids", () => {
  it("are stored apart, read back, listed, deleted, and never write outside the store", async () => {
    const parent = await temporaryDirectory();
    const directory = join(parent, "store");
    const outside = join(parent, "outside");
    await mkdir(outside);
    const store = fsStore({ directory });
    for (const [index, id] of HOSTILE_IDS.entries()) {
      const thread = await store.create({ id, metadata: { id } });
      await thread.append({ role: "user", text: `I am ${id}` });
      await thread.fork({ id: `fork ${index}` });
      await store.scope(id).create({ id });
    }
    for (const id of HOSTILE_IDS) {
      const thread = await store.get(id);
      expect(thread.id).toBe(id);
      expect(thread.metadata).toEqual({ id });
      expect((await thread.messages()).map((message) => message.contents[0])).toEqual([
        { type: "text", text: `I am ${id}` },
      ]);
      expect((await (await store.scope(id).get(id)).messages()).length).toBe(0);
    }
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ cursor, limit: 9 });
      listed.push(...page.items.map((item) => item.id));
      cursor = page.cursor;
    } while (cursor);
    const expected = HOSTILE_IDS.flatMap((id, index) => [id, `fork ${index}`]);
    expect(listed).toEqual([...expected].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    // Everything lies under the store's directory, under names every file system accepts.
    const root = await realpath(directory);
    for (const path of await walk(directory)) {
      expect((await realpath(path)).startsWith(root + sep)).toBe(true);
      const name = relative(directory, path).split(sep).at(-1) as string;
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      expect(name).toMatch(/^[a-z0-9_%=.-]+$/);
      expect(name).not.toMatch(/^\.+$|^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/);
    }
    expect(await readdir(parent)).toEqual(["outside", "store"]);
    expect(await readdir(outside)).toEqual([]);

    for (const id of HOSTILE_IDS) expect(await store.delete(id)).toBe(true);
    expect(await store.delete("ABC")).toBe(false);
    // Deleting a thread leaves its fork whole.
    expect((await (await store.get("fork 0")).messages()).map((message) => message.contents[0])).toEqual([
      { type: "text", text: "I am ../x" },
    ]);
    await store.close();
  }, 60_000);

  it("rejects invalid ids (NUL, control characters, too long) with InvalidThreadIdError", async () => {
    const directory = await temporaryDirectory();
    const store = fsStore({ directory });
    for (const id of ["nul\u0000byte", "\u0000", "line\nbreak", "x".repeat(257), "🧵".repeat(257), ""]) {
      await expect(store.create({ id })).rejects.toBeInstanceOf(InvalidThreadIdError);
      await expect(store.get(id)).rejects.toBeInstanceOf(InvalidThreadIdError);
      await expect(store.delete(id)).rejects.toBeInstanceOf(InvalidThreadIdError);
    }
    expect((await walk(directory)).filter((path) => path.endsWith(".json"))).toEqual([]);
    await store.close();
  });
});

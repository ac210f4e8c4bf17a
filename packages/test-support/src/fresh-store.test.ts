import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ThreadNotFoundError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { freshStore, STORE_KINDS } from "./fresh-store.js";

describe.each(STORE_KINDS)("freshStore(%s)", (kind) => {
  it("gives empty stores that do not see each other's threads", async () => {
    const first = await freshStore(kind);
    const second = await freshStore(kind);
    try {
      expect((await first.store.list()).items).toEqual([]);
      const thread = await first.store.create();
      expect((await first.store.get(thread.id)).id).toBe(thread.id);
      expect((await second.store.list()).items).toEqual([]);
      const missing = await second.store.get(thread.id).catch((error: unknown) => error);
      expect(ThreadNotFoundError.isInstance(missing)).toBe(true);
    } finally {
      await Promise.all([first.dispose(), second.dispose()]);
    }
  });
});

describe("freshStore(fs)", () => {
  it("removes its directory on dispose", async () => {
    const { url, dispose } = await freshStore("fs");
    const directory = fileURLToPath(url);
    expect(existsSync(directory)).toBe(true);
    await dispose();
    expect(existsSync(directory)).toBe(false);
  });
});

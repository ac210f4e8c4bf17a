import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  PLANTED_MARKER,
  plantMarkers,
  plantStreamingReply,
  testEncryption,
} from "@skein/test-support/encryption-markers";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";

/** The files under `directory` (tmp/, trash/ and the catalogue included) whose bytes hold `text`. */
async function filesWith(directory: string, text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(text)) found.push(path.slice(directory.length));
  }
  return found;
}

describe("store.erase on an fs store", () => {
  for (const encrypted of [false, true]) {
    it(`leaves no byte of the owner's data in any file${encrypted ? " (encrypted store)" : ""}`, async () => {
      const directory = await temporaryDirectory("fs-erasure-scan");
      const options = encrypted ? { encryption: testEncryption() } : {};
      const store = await openStore(`file://${directory}`, options);
      await plantMarkers(store);
      await plantMarkers(store.scope("tenant-a"));
      await plantStreamingReply(store);
      const kept = await store.create({ id: "kept", owner: "owner-2", title: "someone else's" });
      await kept.append({ id: "k1", role: "user", text: "stays" });
      if (!encrypted) expect((await filesWith(directory, PLANTED_MARKER)).length).toBeGreaterThan(0);

      const report = await store.erase({ owner: "owner-1" });
      expect(report.threads).toBe(5);
      await store.close();
      expect(await filesWith(directory, PLANTED_MARKER)).toEqual([]);
      expect(await filesWith(directory, "owner-1")).toEqual([]);

      const again = await openStore(`file://${directory}`, options);
      expect((await again.list()).items.map((item) => item.id)).toEqual(["kept"]);
      await again.close();
    });
  }
});

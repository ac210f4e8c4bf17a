import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PLANTED_MARKER, plantMarkers, testEncryption } from "@skein/test-support/encryption-markers";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";

/** The files under `directory` whose bytes hold the marker. */
async function filesWithMarker(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(PLANTED_MARKER)) found.push(path);
  }
  return found;
}

describe("an encrypted fs store", () => {
  it("keeps no planted plaintext in any file under its directory", async () => {
    const directory = await temporaryDirectory("fs-encrypted-scan");
    const store = await openStore(`file://${directory}`, { encryption: testEncryption() });
    await plantMarkers(store);
    await store.close();
    expect(await filesWithMarker(directory)).toEqual([]);
  });

  it("(the scan sees plaintext: the same threads in a store without encryption leave the marker in files)", async () => {
    const directory = await temporaryDirectory("fs-plain-scan");
    const store = await openStore(`file://${directory}`);
    await plantMarkers(store);
    await store.close();
    expect((await filesWithMarker(directory)).length).toBeGreaterThan(0);
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const created: string[] = [];

afterAll(async () => {
  for (const directory of created.splice(0)) await rm(directory, { recursive: true, force: true });
});

/** A fresh directory under the system's temporary directory, removed when the test file ends. */
export async function temporaryDirectory(name = "faults"): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), `skein-${name}-`));
  created.push(directory);
  return directory;
}

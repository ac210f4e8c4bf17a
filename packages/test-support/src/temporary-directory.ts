import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

const created: string[] = [];

afterEach(async () => {
  for (const directory of created.splice(0)) await rm(directory, { recursive: true, force: true });
});

/**
 * A fresh directory under the system's temporary directory, removed after the test.
 * @example const directory = await temporaryDirectory("fs-test");
 */
export async function temporaryDirectory(name = "test"): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), `skein-${name}-`));
  created.push(directory);
  return directory;
}

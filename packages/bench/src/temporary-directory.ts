import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];
process.on("exit", () => {
  for (const path of made) rmSync(path, { recursive: true, force: true });
});

/** A fresh directory under the system's temp dir, removed when the process exits. */
export function temporaryDirectory(): string {
  const path = mkdtempSync(join(tmpdir(), "skein-bench-"));
  made.push(path);
  return path;
}

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const fixtures = fileURLToPath(new URL("../../test/tracing/", import.meta.url));

describe("thread-core without @opentelemetry/api", () => {
  it("works, looks the package up once, and leaves no method wrapped", async () => {
    const directory = await mkdtemp(join(tmpdir(), "skein-no-otel-"));
    const log = join(directory, "resolved.log");
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "--import",
          join(fixtures, "hide-opentelemetry.mjs"),
          join(fixtures, "without-opentelemetry.ts"),
        ],
        { cwd: fixtures, env: { ...process.env, SKEIN_RESOLVE_LOG: log } },
      );
      const result = JSON.parse(stdout.trim().split("\n").pop() as string);
      // Wrapped until the lookup answered; the originals back in place once it found nothing.
      expect(result.before).toEqual([true, true]);
      expect(result.after).toEqual([false, false]);
      expect(result.appended).toBe(3);
      expect(result.messages).toBe(3);
      const attempts = (await readFile(log, "utf8")).trim().split("\n");
      expect(attempts).toEqual(["@opentelemetry/api"]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

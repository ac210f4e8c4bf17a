import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const fixtures = fileURLToPath(new URL("../../test/tracing/", import.meta.url));

/** Runs test/tracing/first-call.ts in a new process, so its calls are the process's first traced ones. */
async function firstCalls(hideOpenTelemetry: boolean): Promise<unknown> {
  const hide = hideOpenTelemetry ? ["--import", join(fixtures, "hide-opentelemetry.mjs")] : [];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", ...hide, join(fixtures, "first-call.ts")],
    { cwd: fixtures },
  );
  return JSON.parse(stdout.trim().split("\n").pop() as string);
}

describe("the first traced calls, before the @opentelemetry/api lookup has answered", () => {
  for (const [label, hidden] of [
    ["installed", false],
    ["not installed", true],
  ] as const) {
    it(`run at once, as untraced calls do (@opentelemetry/api ${label})`, async () => {
      expect(await firstCalls(hidden)).toEqual({
        runnerCalledAtOnce: true,
        note: "as given",
        outcome: "created",
      });
    });
  }
});

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { collectOutput, exited } from "./child-processes.js";

/** The built CLI, run as users run it. */
export const SKEIN_BIN = fileURLToPath(new URL("../../../cli/dist/bin.js", import.meta.url));

export interface SkeinRun {
  /** The exit code; null when it had to be killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Fails with one clear line when packages/cli has not been built. */
export function expectSkeinBuilt(): void {
  expect(
    existsSync(SKEIN_BIN),
    `${SKEIN_BIN} is missing: build packages/cli (npx tsup there, or npm run build)`,
  ).toBe(true);
}

/**
 * Runs `node packages/cli/dist/bin.js …args`, killing it after `withinMs`: generous, as a hang never ends
 * while a machine busy with other work may take a while over a large import.
 */
export async function runSkein(args: string[], withinMs = 90_000): Promise<SkeinRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [SKEIN_BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const output = collectOutput(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), withinMs);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, stdout: output.stdout(), stderr: output.stderr(), ms: Date.now() - started };
}

import { type ChildProcess, spawn } from "node:child_process";
import { finished } from "node:stream/promises";
import { fileURLToPath } from "node:url";

const packageRoot = fileURLToPath(new URL("../../", import.meta.url));

/** A child's output so far, as it arrives. */
export interface ChildOutput {
  stdout(): string;
  stderr(): string;
  /** Whole lines of standard output (a line cut off by a kill is left out). */
  lines(): string[];
}

/** A started child with its output collected. */
export interface RunningChild {
  process: ChildProcess;
  output: ChildOutput;
}

/**
 * Starts `test/children/<script>` in its own Node.js process through tsx. The children import the
 * packages as users do (their built `dist`), so they exercise what ships.
 */
export function startChild(
  script: string,
  args: string[],
  environment: NodeJS.ProcessEnv = {},
): RunningChild {
  const path = fileURLToPath(new URL(`../children/${script}`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", path, ...args], {
    cwd: packageRoot,
    env: { ...process.env, ...environment },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return { process: child, output: collectOutput(child) };
}

/** Accumulates a child's output as it comes. */
export function collectOutput(child: ChildProcess): ChildOutput {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => stdout.split("\n").slice(0, -1),
  };
}

/** Resolves with the exit code (null when killed by a signal) once the child is gone and its pipes closed. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

/**
 * Waits until `condition` holds, polling; fails after `withinMs` with `what` in the message. Generous: a
 * child starting (TypeScript compiled on the fly) on a machine busy with other work can take many seconds.
 * Given the `child` the condition waits on, it fails at once when that child has exited without it, with
 * its exit code and standard error: a child that is gone can no longer make the condition true.
 */
export async function until(
  condition: () => boolean,
  what: string,
  withinMs = 90_000,
  child?: RunningChild,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (child && hasExited(child.process)) {
      // Its last output may still be on its way through the pipes: read all of it before deciding.
      await drained(child.process);
      if (condition()) return;
      throw new Error(
        `the child ${exitOf(child.process)} before ${what}; its stderr: ${child.output.stderr().slice(-4000)}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the child has printed `line` as a whole line; fails at once if it exits first. */
export function printed(child: RunningChild, line: string, withinMs = 90_000): Promise<void> {
  return until(
    () => child.output.lines().includes(line),
    `a child to print ${JSON.stringify(line)} (stderr: ${child.output.stderr().slice(0, 500)})`,
    withinMs,
    child,
  );
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** How the child ended: "exited with code 13", "was killed by SIGKILL". */
function exitOf(child: ChildProcess): string {
  return child.exitCode !== null ? `exited with code ${child.exitCode}` : `was killed by ${child.signalCode}`;
}

/** Resolves once the child's standard output and error have ended (all their data delivered). */
async function drained(child: ChildProcess): Promise<void> {
  const streams = [child.stdout, child.stderr].filter((stream) => stream !== null);
  // A stream destroyed before its end rejects: whatever it delivered is all there will be.
  await Promise.all(streams.map((stream) => finished(stream).catch(() => {})));
}

/**
 * Runs a child to its end, killing it after `withinMs` (so a hang fails the test instead of stalling it),
 * and gives its standard output; rejects with its standard error if it fails.
 */
export async function runChild(
  script: string,
  args: string[],
  options: { withinMs?: number; environment?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const child = startChild(script, args, options.environment);
  child.process.stdin?.end();
  const withinMs = options.withinMs ?? 60_000;
  const timer = setTimeout(() => child.process.kill("SIGKILL"), withinMs);
  const code = await exited(child.process);
  clearTimeout(timer);
  if (code !== 0) {
    const how = code === null ? `was killed after ${withinMs} ms` : `exited with ${code}`;
    // The end of standard error: where a child that hung was.
    throw new Error(`${script} ${how}: ${child.output.stderr().slice(-4000)}`);
  }
  return child.output.stdout();
}

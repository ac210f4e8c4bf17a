import { type ChildProcess, spawn } from "node:child_process";
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
 */
export async function until(condition: () => boolean, what: string, withinMs = 90_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the child has printed `line` as a whole line. */
export function printed(child: RunningChild, line: string, withinMs = 90_000): Promise<void> {
  return until(
    () => child.output.lines().includes(line),
    `a child to print ${JSON.stringify(line)} (stderr: ${child.output.stderr().slice(0, 500)})`,
    withinMs,
  );
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

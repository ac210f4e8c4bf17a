import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const packageRoot = fileURLToPath(new URL("../", import.meta.url));

/**
 * Starts `test/children/<script>` in its own Node.js process. Children run this package's TypeScript
 * sources through tsx, so the tests need no build. `environment` is added to this process's environment.
 */
export function startChild(
  script: string,
  args: string[],
  environment: Record<string, string> = {},
): ChildProcess {
  const path = fileURLToPath(new URL(`./children/${script}`, import.meta.url));
  return spawn(process.execPath, ["--import", "tsx", path, ...args], {
    cwd: packageRoot,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...environment },
  });
}

/** Waits until the child has printed `line` (generously: a child starting on a busy machine can be slow). */
export async function printed(
  output: { stdout: () => string; stderr?: () => string },
  line: string,
): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!output.stdout().split("\n").includes(line)) {
    if (Date.now() > deadline) {
      // What the child said on its way out (it may have failed rather than been slow).
      const said = output.stderr?.() ?? "";
      throw new Error(
        `timed out waiting for a child to print ${JSON.stringify(line)}${said ? `: ${said}` : ""}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Runs a child to its end and gives its standard output; rejects with its standard error if it fails. */
export async function runChild(
  script: string,
  args: string[],
  environment: Record<string, string> = {},
): Promise<string> {
  const child = startChild(script, args, environment);
  child.stdin?.end();
  const output = collectOutput(child);
  const code = await exited(child);
  if (code !== 0) throw new Error(`${script} exited with ${code}: ${output.stderr()}`);
  return output.stdout();
}

/** Accumulates a child's output as it comes. */
export function collectOutput(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return { stdout: () => stdout, stderr: () => stderr };
}

/** Resolves with the exit code (null when killed by a signal) once the child is gone and reaped. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

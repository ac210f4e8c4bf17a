import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI: the tests run what users run. */
export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

export interface SkeinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SkeinOptions {
  /** SKEIN_STORE for the run; unset means the CLI's default. */
  store?: string;
  /** Written to stdin, which is then closed. */
  input?: string;
  cwd?: string;
}

/** Runs `node dist/bin.js …args` and collects its output and exit code. */
export function skein(args: string[], options: SkeinOptions = {}): Promise<SkeinResult> {
  const child = spawnSkein(args, options);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      }),
    );
  });
}

/** Starts the CLI without waiting for it, for tests that interrupt it. */
export function spawnSkein(args: string[], options: SkeinOptions = {}) {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  delete environment.SKEIN_STORE;
  if (options.store !== undefined) environment.SKEIN_STORE = options.store;
  return spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: environment,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the CLI and fails with its stderr unless it exits 0; returns stdout. */
export async function skeinOk(args: string[], options: SkeinOptions = {}): Promise<string> {
  const result = await skein(args, options);
  if (result.code !== 0) {
    throw new Error(`skein ${args.join(" ")} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

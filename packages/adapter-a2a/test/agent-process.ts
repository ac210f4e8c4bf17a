import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./children/agent-process.ts", import.meta.url));
const packageDirectory = fileURLToPath(new URL("..", import.meta.url));

export interface AgentProcess {
  port: number;
  /** Kills the process outright, as a crash would, and waits until it is gone. */
  kill(): Promise<void>;
}

/** Starts the A2A test server in a child process, its tasks in `scope` of a skein store, on `port` or a free one. */
export async function startAgentProcess(
  storeUrl: string,
  options: { scope: string; port?: number },
): Promise<AgentProcess> {
  const args = [script, storeUrl, options.scope, String(options.port ?? 0)];
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: packageDirectory,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const listening = await new Promise<number>((resolve, reject) => {
    let output = "";
    let errors = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.once("exit", (code) =>
      reject(new Error(`the agent process exited (${code}) before listening:\n${errors}`)),
    );
  });
  return { port: listening, kill: () => kill(child) };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

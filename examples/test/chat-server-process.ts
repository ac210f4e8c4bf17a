import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../ai-sdk-chat/server.mjs", import.meta.url));

/** A process running the example's server, as its README starts it. */
export interface ChatServer {
  /** Where it listens: `http://127.0.0.1:<port>`. */
  url: string;
  process: ChildProcess;
}

/** Starts a server process of the example on `storeUrl`; resolves once it listens. `cleanups` stops it at the end. */
export async function startServer(
  storeUrl: string,
  cleanups: Array<() => void>,
  extraArguments: string[] = [],
): Promise<ChatServer> {
  const child = spawn(process.execPath, [script, storeUrl, ...extraArguments], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanups.push(() => child.kill());
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      const found = /listening on (\S+)/.exec(data.toString());
      if (found) resolve(found[1] as string);
    });
    child.on("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { url, process: child };
}

/** Stops a server as Ctrl-C does and resolves with its exit code: it closes its store and exits. */
export async function stopServer(server: ChatServer): Promise<number | null> {
  if (server.process.exitCode !== null) return server.process.exitCode;
  const exited = new Promise<number | null>((resolve) => server.process.on("exit", resolve));
  server.process.kill("SIGTERM");
  return exited;
}

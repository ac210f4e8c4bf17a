import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A redis-server process a test started, and may stop, restart or freeze; the shared one is never touched. */
export interface RedisServer {
  port: number;
  url: string;
  /** Ends the process: SIGTERM (a clean shutdown) or SIGKILL (a crash). Keeps its directory for a restart. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts it again on the same port and directory; resolves once it answers PING. */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers; SIGCONT wakes it. */
  signal(name: "SIGSTOP" | "SIGCONT"): void;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

/**
 * Starts Debian's `redis-server` on a free loopback port in a temporary directory. `durable` turns on the
 * append-only file with an fsync per write, so a restart (even after SIGKILL) keeps every acknowledged write.
 */
export async function startRedisServer(options: { durable?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "skein-faults-redis-"));
  const persistence = options.durable
    ? ["--appendonly", "yes", "--appendfsync", "always"]
    : ["--appendonly", "no"];
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    ...persistence,
    "--dir",
    directory,
  ];
  let child = await launch(args, port);
  const stop = async (signal: "SIGTERM" | "SIGKILL" = "SIGTERM") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    child.kill("SIGCONT"); // a frozen server must wake to act on SIGTERM
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await gone;
    clearTimeout(timer);
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    async restart() {
      if (child.exitCode === null && child.signalCode === null) return;
      child = await launch(args, port);
    },
    signal(name) {
      child.kill(name);
    },
    async dispose() {
      await stop("SIGKILL");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function launch(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  // Generous: on a loaded machine a restart that loads the append-only file can take a while.
  const deadline = Date.now() + 60_000;
  while (!(await ping(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(
        `redis-server on port ${port} did not start within 60 s; is Debian's redis-server installed?`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

/** A loopback port nothing listens on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Whether a server on `port` answers PING within half a second. */
export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" }, () => socket.write("PING\r\n"));
    socket.setTimeout(500, () => socket.destroy());
    socket.on("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
    socket.on("error", () => resolve(false));
    socket.on("close", () => resolve(false));
  });
}

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throw-away redis-server on a free loopback port, persisting nothing. */
export async function startRedisServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "skein-cli-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory],
    { stdio: "ignore" },
  );
  const failed = new Promise<Error>((resolve) => child.once("error", resolve));
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    const error = await Promise.race([failed, delay(50)]);
    if (error || child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(directory, { recursive: true, force: true });
      throw new Error(
        `could not start redis-server (${error ? error.message : "it did not answer"}); install Debian's redis-server or set REDIS_URL`,
      );
    }
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => stop(child, directory) };
}

async function stop(child: ChildProcess, directory: string): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, delay(5000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(directory, { recursive: true, force: true });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function ping(port: number): Promise<boolean> {
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

function delay(milliseconds: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), milliseconds));
}

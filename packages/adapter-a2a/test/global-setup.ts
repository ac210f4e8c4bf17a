import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "./free-port.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis the task-store tests use: REDIS_URL, or a redis-server started here; "" if none. */
    redisUrl: string;
  }
}

/**
 * The root `npm test` sets REDIS_URL. Run alone (`npx vitest run`), the package starts Debian's
 * redis-server on a free loopback port, without persistence, and stops it afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.REDIS_URL) {
    project.provide("redisUrl", process.env.REDIS_URL);
    return async () => {};
  }
  const port = await freePort();
  const directory = await mkdtemp(join(tmpdir(), "skein-a2a-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory],
    { stdio: "ignore" },
  );
  child.on("error", () => {}); // no redis-server: the Redis cases say so when they run
  const ready = await waitForPong(port, child);
  project.provide("redisUrl", ready ? `redis://127.0.0.1:${port}` : "");
  return async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
    await rm(directory, { recursive: true, force: true });
  };
}

async function waitForPong(port: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null && !child.killed) {
    if (await ping(port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
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

// Gives the tests a Redis: REDIS_URL when set (the root `npm test` sets it), else a redis-server of our own
// on a free loopback port, without persistence, stopped when the run ends.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A Redis URL for the tests, or a sentence saying why there is none. */
    redis: { url: string } | { unavailable: string };
  }
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

function answersPing(port: number): Promise<boolean> {
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

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.REDIS_URL) {
    project.provide("redis", { url: process.env.REDIS_URL });
    return undefined;
  }
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "thread-service-redis-"));
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    directory,
  ];
  const child: ChildProcess = spawn("redis-server", args, { stdio: "ignore" });
  const failure = new Promise<string>((resolve) => {
    child.on("error", (error) => resolve(`redis-server could not start (${error.message}); set REDIS_URL`));
    child.on("exit", (code) => resolve(`redis-server exited with code ${code}; set REDIS_URL`));
  });
  let problem: string | undefined;
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    problem = await Promise.race([
      failure,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
    ]);
    if (!problem && Date.now() > deadline) problem = "redis-server did not answer within 10 s; set REDIS_URL";
    if (problem) break;
  }
  project.provide("redis", problem ? { unavailable: problem } : { url: `redis://127.0.0.1:${port}` });
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    rmSync(directory, { recursive: true, force: true });
  };
}

// Starts Debian's redis-server on a free loopback port for a test run, installing the package with
// apt-get when it is missing and we are root. REDIS_URL set by the user means "use mine".
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

function which(command) {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function install(log) {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    log(
      "redis-server is not installed and we are not root: install Debian's redis-server (apt-get install redis-server) or set REDIS_URL; Redis tests will fail",
    );
    return false;
  }
  log("installing Debian's redis-server with apt-get (once per machine)");
  const options = {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  };
  try {
    execFileSync("apt-get", ["update"], options);
    execFileSync(
      "apt-get",
      ["install", "-y", "--no-install-recommends", "redis-server", "redis-tools"],
      options,
    );
    return true;
  } catch (error) {
    log(`apt-get could not install redis-server (${error.message}); Redis tests will fail`);
    return false;
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function ping(port) {
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

/** Resolves to `{ url, stop }`; `url` is undefined when no server could be had. */
export async function startRedis({ log = () => {} } = {}) {
  if (process.env.REDIS_URL) {
    log(`using REDIS_URL from the environment`);
    return { url: process.env.REDIS_URL, stop: async () => {} };
  }
  if (!which("redis-server") && !install(log)) return { url: undefined, stop: async () => {} };
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "skein-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory],
    { stdio: "ignore" },
  );
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      log("redis-server did not start within 10 s; Redis tests will fail");
      return { url: undefined, stop: async () => {} };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  log(`redis-server ${port} started for this run`);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

// The one way skein's tests get a throw-away Redis: Debian's redis-server on a free loopback port, persisting
// nothing, in a temporary directory removed on stop. Plain ESM without a build step, so the root runner
// (scripts/test.mjs) and every package's vitest setup can import it; types are in redis-server.d.mts.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const INSTALL_HINT = "install Debian's redis-server (apt-get install redis-server)";

function isInstalled(command) {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Throws one line naming the missing command when redis-server or redis-cli is not installed. */
export function assertRedisInstalled() {
  for (const command of ["redis-server", "redis-cli"]) {
    if (!isInstalled(command)) throw new Error(`${command} is not installed: ${INSTALL_HINT}`);
  }
}

function installWithApt(log) {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    log("redis-server is not installed, and we are not root, so we cannot apt-get it");
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
    log(`apt-get could not install redis-server (${error.message})`);
    return false;
  }
}

function listenOnce(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.on("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      server.close(() => resolve(bound));
    });
  });
}

/** A loopback port that was free a moment ago; with `bus`, port + 10000 (a Cluster node's bus port) too. */
export async function freePort({ bus = false } = {}) {
  for (;;) {
    const port = await listenOnce(bus ? 20000 + Math.floor(Math.random() * 30000) : 0);
    if (port !== undefined && (!bus || (await listenOnce(port + 10000)) !== undefined)) return port;
  }
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

const delay = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const hasExited = (child) => child.exitCode !== null || child.signalCode !== null;

/** Why a server that does not answer PING yet never will, or undefined while it may still. */
function startFailure(child, spawnError, port, deadline) {
  if (spawnError)
    return `redis-server could not start (${spawnError.message}): ${INSTALL_HINT} or set REDIS_URL`;
  if (hasExited(child))
    return `redis-server on port ${port} exited (${child.exitCode ?? child.signalCode}) before answering PING`;
  if (Date.now() > deadline) return `redis-server on port ${port} did not answer PING within 10 s`;
  return undefined;
}

/** Spawns redis-server and resolves once it answers PING; rejects with one line when it cannot start. */
async function launch(args, port) {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  let spawnError;
  child.once("error", (error) => {
    spawnError = error;
  });
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    const failure = startFailure(child, spawnError, port, deadline);
    if (failure) {
      child.kill("SIGKILL");
      throw new Error(failure);
    }
    await delay(25);
  }
  return child;
}

async function terminate(child) {
  if (hasExited(child)) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  child.kill("SIGCONT"); // a stopped (SIGSTOP) server must wake to act on SIGTERM
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * A redis-server this caller owns, e.g. `await startRedisServer({ args: ["--appendonly", "yes"] })`.
 * `args` come after the defaults (`--save "" --appendonly no`), so they override them.
 */
export async function startRedisServer({ port, args = [], directory } = {}) {
  const serverPort = port ?? (await freePort());
  const serverDirectory = directory ?? mkdtempSync(join(tmpdir(), "skein-redis-"));
  const removeDirectory = () => {
    if (!directory) rmSync(serverDirectory, { recursive: true, force: true });
  };
  const defaults = ["--port", String(serverPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const commandLine = [...defaults, "--dir", serverDirectory, ...args];
  let child;
  try {
    child = await launch(commandLine, serverPort);
  } catch (error) {
    removeDirectory();
    throw error;
  }
  return {
    port: serverPort,
    url: `redis://127.0.0.1:${serverPort}`,
    directory: serverDirectory,
    get process() {
      return child;
    },
    async stop({ keepDirectory = false } = {}) {
      await terminate(child);
      if (!keepDirectory) removeDirectory();
    },
    async restart() {
      if (!hasExited(child)) return;
      child = await launch(commandLine, serverPort);
    },
  };
}

function clusterInfo(port) {
  return execFileSync("redis-cli", ["-p", String(port), "cluster", "info"], { encoding: "utf8" });
}

/** `masters` nodes joined with `redis-cli --cluster create`, resolved once every node says `cluster_state:ok`. */
export async function startRedisCluster({ masters = 3 } = {}) {
  const nodes = await Promise.all(
    Array.from({ length: masters }, async () =>
      startRedisServer({ port: await freePort({ bus: true }), args: ["--cluster-enabled", "yes"] }),
    ),
  );
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    execFileSync(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      { stdio: "ignore", timeout: 30_000 },
    );
    const deadline = Date.now() + 20_000;
    while (!nodes.every((node) => clusterInfo(node.port).includes("cluster_state:ok"))) {
      if (Date.now() > deadline)
        throw new Error("the Redis Cluster did not reach cluster_state:ok within 20 s");
      await delay(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${nodes[0].port}?cluster=true`, nodes, stop };
}

/**
 * REDIS_URL when set ("use mine"), else a redis-server of our own; `install` lets the root runner apt-get it.
 * Rejects with one line when no server can be had.
 */
export async function startRedis({ log = () => {}, install = false } = {}) {
  if (process.env.REDIS_URL) {
    log("using REDIS_URL from the environment");
    return { url: process.env.REDIS_URL, stop: async () => {} };
  }
  if (install && !isInstalled("redis-server")) installWithApt(log);
  const server = await startRedisServer();
  log(`redis-server ${server.port} started for this run`);
  return { url: server.url, stop: () => server.stop() };
}

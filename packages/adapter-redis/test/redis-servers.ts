import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A redis-server process this test run started. */
export interface RedisServer {
  port: number;
  url: string;
  /** Stops the process (SIGTERM, then SIGKILL) and removes its directory unless `keepDirectory`. */
  stop(options?: { keepDirectory?: boolean }): Promise<void>;
  /** Starts the process again on the same port and directory, unless it is running. */
  restart(): Promise<void>;
  /** Sends a signal: SIGSTOP makes a server that is connected but never answers, SIGCONT wakes it. */
  signal(name: NodeJS.Signals): void;
}

/** Fails with one line when Debian's redis-server is not installed. */
export function assertRedisInstalled(): void {
  for (const command of ["redis-server", "redis-cli"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    } catch {
      throw new Error(
        `${command} is not installed: install Debian's redis-server (apt-get install redis-server), or set REDIS_URL and REDIS_CLUSTER_URL.`,
      );
    }
  }
}

/** A loopback port nothing listens on; with `bus`, port + 10000 (a Cluster node's bus port) is free too. */
export async function freePort(bus = false): Promise<number> {
  for (;;) {
    const port = await listenOnce(bus ? 20000 + Math.floor(Math.random() * 30000) : 0);
    if (port !== undefined && (!bus || (await listenOnce(port + 10000)) !== undefined)) return port;
  }
}

function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.on("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : undefined));
    });
  });
}

/** Answers PING within half a second. */
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

/**
 * Starts `redis-server --port <free> --save "" --appendonly no` in a temporary directory; `durable` turns
 * the append-only file on instead, so data survives a restart.
 */
export async function startRedisServer(
  options: { cluster?: boolean; durable?: boolean } = {},
): Promise<RedisServer> {
  const port = await freePort(options.cluster);
  const directory = mkdtempSync(join(tmpdir(), "skein-redis-test-"));
  const appendOnly = options.durable
    ? ["--appendonly", "yes", "--appendfsync", "always"]
    : ["--appendonly", "no"];
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    ...appendOnly,
    "--dir",
    directory,
  ];
  if (options.cluster) {
    args.push("--cluster-enabled", "yes", "--cluster-config-file", join(directory, `nodes-${port}.conf`));
  }
  let child: ChildProcess = await launch(args, port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop({ keepDirectory = false } = {}) {
      await terminate(child);
      if (!keepDirectory) rmSync(directory, { recursive: true, force: true });
    },
    async restart() {
      if (child.exitCode === null && child.signalCode === null) return; // still running
      child = await launch(args, port);
    },
    signal(name) {
      child.kill(name);
    },
  };
}

async function launch(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`redis-server on port ${port} did not start within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return child;
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  child.kill("SIGCONT"); // a stopped (SIGSTOP) server must wake to act on SIGTERM
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Three masters on loopback joined with `redis-cli --cluster create`, ready when every node says `cluster_state:ok`. */
export async function startRedisCluster(): Promise<{
  url: string;
  nodes: RedisServer[];
  stop(): Promise<void>;
}> {
  const nodes = await Promise.all([0, 1, 2].map(() => startRedisServer({ cluster: true })));
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
        throw new Error("the test Redis Cluster did not reach cluster_state:ok within 20 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${nodes[0]?.port}?cluster=true`, nodes, stop };
}

function clusterInfo(port: number): string {
  return execFileSync("redis-cli", ["-p", String(port), "cluster", "info"], { encoding: "utf8" });
}

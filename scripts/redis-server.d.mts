// Types for redis-server.mjs, so that TypeScript tests import it checked.
import type { ChildProcess } from "node:child_process";

/** A redis-server process the caller started and owns. */
export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Where the server runs; a temporary directory unless the caller gave one. */
  directory: string;
  /** The running process (a new one after `restart()`): `process.kill("SIGSTOP")` makes a server that never answers. */
  readonly process: ChildProcess;
  /** SIGTERM (waking a SIGSTOPped server), SIGKILL after 5 s; removes a temporary directory unless `keepDirectory`. */
  stop(options?: { keepDirectory?: boolean }): Promise<void>;
  /** Starts the process again on the same port, directory and arguments, unless it is running. */
  restart(): Promise<void>;
}

/** Throws one line naming the missing command when redis-server or redis-cli is not installed. */
export function assertRedisInstalled(): void;

/** A loopback port that was free a moment ago; with `bus`, port + 10000 (a Cluster node's bus port) too. */
export function freePort(options?: { bus?: boolean }): Promise<number>;

/**
 * A redis-server this caller owns, e.g. `await startRedisServer({ args: ["--appendonly", "yes"] })`.
 * Rejects with one line when redis-server is missing or does not answer PING within 10 s.
 */
export function startRedisServer(options?: {
  /** @default a free loopback port */
  port?: number;
  /** Appended after `--save "" --appendonly no`, so they override those. */
  args?: string[];
  /** @default a new temporary directory, removed on stop */
  directory?: string;
}): Promise<RedisServer>;

/** A Redis Cluster of `masters` nodes, no replicas; `url` is `redis://127.0.0.1:<first>?cluster=true`. */
export function startRedisCluster(options?: {
  /** @default 3 */
  masters?: number;
}): Promise<{ url: string; nodes: RedisServer[]; stop(): Promise<void> }>;

/** REDIS_URL when set, else a redis-server of our own; rejects with one line when no server can be had. */
export function startRedis(options?: {
  log?: (line: string) => void;
  /** apt-get install redis-server when it is missing and we are root. @default false */
  install?: boolean;
}): Promise<{ url: string; stop(): Promise<void> }>;

import { createClient, createCluster } from "redis";
import type { RedisAnyClient } from "./redis-connection.js";

export interface OwnedClientSettings {
  /** The server (or one Cluster node), without skein's query parameters. */
  url: URL;
  /** Cluster root nodes besides `url`, as URLs; undefined for a single server. */
  clusterNodes: URL[] | undefined;
  /** How long one connection attempt may take. */
  connectTimeoutMs: number;
}

/** Waits a little longer after each failed attempt, and keeps trying, so work resumes when Redis returns. */
function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 1000);
}

/**
 * No per-command timeout of the client's own: `RedisConnection` bounds every call, from the moment it is
 * made to its reply, with one timer for all pending calls, while the client's timeout (an `AbortSignal`
 * per command, dropped once the command is written) covers only the wait to be written and cost more
 * CPU per append than the rest of the call's bookkeeping when many threads are appended at once.
 */
const commandOptions = { timeout: 0 };

/**
 * A client the store owns. The offline queue is off, so calls made while Redis is away fail at once
 * (as `StoreUnavailableError`) instead of piling up; errors are reported through those calls, not as
 * unhandled `error` events.
 */
export function createOwnedClient(settings: OwnedClientSettings): RedisAnyClient {
  const socket = { connectTimeout: settings.connectTimeoutMs, reconnectStrategy: reconnectDelay };
  if (settings.clusterNodes === undefined) {
    const client = createClient({
      url: settings.url.href,
      disableOfflineQueue: true,
      socket,
      commandOptions,
    });
    client.on("error", () => {});
    return client as unknown as RedisAnyClient;
  }
  const tls = settings.url.protocol === "rediss:";
  const cluster = createCluster({
    rootNodes: [settings.url, ...settings.clusterNodes].map((node) => ({ url: node.href })),
    commandOptions,
    defaults: {
      username: settings.url.username ? decodeURIComponent(settings.url.username) : undefined,
      password: settings.url.password ? decodeURIComponent(settings.url.password) : undefined,
      disableOfflineQueue: true,
      socket: tls ? { ...socket, tls: true } : socket,
    },
  });
  cluster.on("error", () => {});
  return cluster as unknown as RedisAnyClient;
}

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
 * A client the store owns. The offline queue is off, so calls made while Redis is away fail at once
 * (as `StoreUnavailableError`) instead of piling up; errors are reported through those calls, not as
 * unhandled `error` events.
 */
export function createOwnedClient(settings: OwnedClientSettings): RedisAnyClient {
  const socket = { connectTimeout: settings.connectTimeoutMs, reconnectStrategy: reconnectDelay };
  if (settings.clusterNodes === undefined) {
    const client = createClient({ url: settings.url.href, disableOfflineQueue: true, socket });
    client.on("error", () => {});
    return client as unknown as RedisAnyClient;
  }
  const tls = settings.url.protocol === "rediss:";
  const cluster = createCluster({
    rootNodes: [settings.url, ...settings.clusterNodes].map((node) => ({ url: node.href })),
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

import { InvalidStoreUrlError } from "@skein/thread-core";
import { redactUrl, redactUrlText } from "@skein/thread-core/driver";

/** What a `redis:` or `rediss:` store URL says. */
export interface RedisUrlSettings {
  /** The server, or one Cluster node, without skein's query parameters. */
  url: URL;
  /** The URL's `cluster` parameter (or `node` parameters); undefined when it has none. */
  cluster: boolean | undefined;
  /** Further Cluster root nodes from `node=host:port` parameters. */
  nodes: URL[];
  prefix: string | undefined;
  ttlSeconds: number | undefined;
  commandTimeoutMs: number | undefined;
}

const PARAMETERS = ["cluster", "node", "prefix", "ttl", "timeout"];

/**
 * Reads a store URL: `redis[s]://[user:password@]host[:port][/db]` with optional parameters
 * `cluster=true`, `node=host:port` (repeatable, other Cluster root nodes), `prefix=…`, `ttl=<seconds>`
 * and `timeout=<milliseconds>`.
 * @example parseRedisUrl("redis://127.0.0.1:7000?cluster=true&node=127.0.0.1:7001&prefix=app")
 */
export function parseRedisUrl(input: string | URL): RedisUrlSettings {
  const url = parsedUrl(input instanceof URL ? input.href : String(input));
  const fail = (detail: string) =>
    new InvalidStoreUrlError(redactUrl(url), detail, { source: "adapter-redis" });
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw fail("expected redis:// or rediss://");
  for (const name of new Set(url.searchParams.keys())) {
    if (!PARAMETERS.includes(name))
      throw fail(`unknown parameter "${name}"; known: ${PARAMETERS.join(", ")}`);
  }
  const nodes = url.searchParams.getAll("node").map((node) => nodeUrl(url, node, fail));
  const clusterParameter = url.searchParams.get("cluster");
  if (clusterParameter !== null && !["true", "false", "1", "0"].includes(clusterParameter)) {
    throw fail(`cluster must be true or false, not "${clusterParameter}"`);
  }
  const cluster =
    clusterParameter === null ? (nodes.length > 0 ? true : undefined) : /^(true|1)$/.test(clusterParameter);
  const server = new URL(url.href);
  server.search = "";
  server.hash = "";
  const settings: RedisUrlSettings = {
    url: server,
    cluster,
    nodes,
    prefix: url.searchParams.get("prefix") ?? undefined,
    ttlSeconds: positiveInteger(url.searchParams.get("ttl"), "ttl", fail),
    commandTimeoutMs: positiveInteger(url.searchParams.get("timeout"), "timeout", fail),
  };
  if (cluster && !/^\/?0?$/.test(url.pathname)) throw fail("Redis Cluster has only database 0");
  return settings;
}

/** Node's ERR_INVALID_URL keeps the input, password and all, so it is not kept as the cause. */
function parsedUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new InvalidStoreUrlError(redactUrlText(text), "it is not a URL (expected redis://host:port)", {
      source: "adapter-redis",
    });
  }
}

function nodeUrl(base: URL, node: string, fail: (detail: string) => Error): URL {
  const credentials = base.username || base.password ? `${base.username}:${base.password}@` : "";
  try {
    const parsed = new URL(/^rediss?:\/\//.test(node) ? node : `${base.protocol}//${credentials}${node}`);
    if (!parsed.hostname) throw new Error("no host");
    return parsed;
  } catch {
    throw fail(`node "${redactUrlText(node)}" is not host:port`);
  }
}

function positiveInteger(
  value: string | null,
  name: string,
  fail: (detail: string) => Error,
): number | undefined {
  if (value === null) return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number <= 0) throw fail(`${name} must be a positive whole number`);
  return number;
}

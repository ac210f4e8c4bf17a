import { InvalidStoreUrlError, SkeinError, type ThreadTypeRegistry } from "@skein/thread-core";
import {
  defineLogStore,
  type EncryptionOptions,
  type LocalStore,
  redactUrl,
  redactUrlText,
  type SkeinAdapter,
} from "@skein/thread-core/driver";
import { LONGEST_TIMER_MS } from "./call-deadlines.js";
import { createOwnedClient } from "./create-redis-client.js";
import { isClusterClient, type RedisAnyClient, RedisConnection } from "./redis-connection.js";
import { RedisLogDriver } from "./redis-log-driver.js";
import { parseRedisUrl } from "./redis-url.js";

/** Options of `redisStore`: a ready client or a URL, Cluster, the key prefix and more. */
export interface RedisStoreOptions {
  /**
   * A ready node-redis client (`createClient()`, connected) or cluster client (`createCluster()`).
   * The store uses it as it is and `close()` leaves it open.
   * @default a client the store creates from `url`, and closes on `close()`
   */
  client?: RedisAnyClient;
  /**
   * `redis[s]://[user:password@]host[:port][/db]`, optionally with `?cluster=true`, `node=host:port`
   * (repeatable), `prefix=`, `ttl=` (seconds) and `timeout=` (ms); options given here win over them.
   * @default "redis://127.0.0.1:6379"
   */
  url?: string | URL;
  /**
   * Redis Cluster: `true` to use `url` as the root node, or more root node URLs (`redis://host:port`).
   * The other nodes are discovered from the cluster.
   * @default false, unless the URL says `cluster=true`
   */
  cluster?: boolean | readonly string[];
  /** Prepended to every key; must not contain `{` or `}`. @default "skein" */
  prefix?: string;
  /** Retention: a thread's keys expire this long after its last write. @default undefined (never) */
  ttlSeconds?: number;
  /** A call that Redis does not answer within this fails with `StoreUnavailableError`. @default 5000 */
  commandTimeoutMs?: number;
  /** @default defaultRegistry() */
  registry?: ThreadTypeRegistry;
  /** Adapters of other thread types the store keeps. @default [] */
  adapters?: readonly SkeinAdapter[];
  /**
   * Encrypts what the store keeps at rest (AES-256-GCM): `{ keys: { "2026-12": key }, current: "2026-12" }`
   * with 32-byte keys, or `{ keyProvider, current }`. See thread-core's README, "Encryption at rest".
   * @default no encryption
   */
  encryption?: EncryptionOptions;
}

const DEFAULT_URL = "redis://127.0.0.1:6379";
const DEFAULT_TIMEOUT_MS = 5000;

/** `redis`: local threads in Redis or Redis Cluster; its JSON refers to a thread by id. */
export const {
  threadType: redisThreadType,
  store: storeOf,
  adapter: redisAdapterOf,
} = defineLogStore<RedisStoreOptions>({
  type: "redis",
  packageName: "@skein/adapter-redis",
  schemes: ["redis", "rediss"],
  createDriver: redisDriver,
  optionsFromUrl: (url, options) => ({ ...options, url }),
  describe: displayUrl,
  verify: (driver) => (driver as RedisLogDriver).ping(),
});

/**
 * A store that keeps local threads (`redis`) and other threads' states in Redis or Redis Cluster.
 * @example const store = redisStore({ url: process.env.REDIS_URL, ttlSeconds: 30 * 86_400 });
 */
export function redisStore(options: RedisStoreOptions = {}): LocalStore {
  return storeOf(options);
}

function redisDriver(options: RedisStoreOptions): RedisLogDriver {
  const fromUrl = parseRedisUrl(options.url ?? DEFAULT_URL);
  const prefix = options.prefix ?? fromUrl.prefix ?? "skein";
  const ttlSeconds = options.ttlSeconds ?? fromUrl.ttlSeconds;
  const commandTimeoutMs = options.commandTimeoutMs ?? fromUrl.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  assertPositive("ttlSeconds", ttlSeconds);
  assertPositive("commandTimeoutMs", commandTimeoutMs);
  const cluster = options.cluster ?? fromUrl.cluster ?? false;
  const client =
    options.client ??
    createOwnedClient({
      url: fromUrl.url,
      clusterNodes:
        cluster === false
          ? undefined
          : [...fromUrl.nodes, ...(Array.isArray(cluster) ? cluster : []).map(clusterNodeUrl)],
      // The client times its connection with one Node timer, which holds at most LONGEST_TIMER_MS.
      connectTimeoutMs: Math.min(commandTimeoutMs, LONGEST_TIMER_MS),
    });
  const connection = new RedisConnection({
    client,
    ownsClient: !options.client,
    commandTimeoutMs,
    displayUrl: displayUrl(options),
  });
  return new RedisLogDriver({ connection, prefix, ttlSeconds });
}

/** What `store.url` and messages show: the URL without passwords, or what kind of client was passed in. */
function displayUrl(options: RedisStoreOptions): string {
  return options.client && options.url === undefined
    ? describeClient(options.client)
    : redactUrl(new URL(String(options.url ?? DEFAULT_URL)));
}

/** A Cluster root node given in options; Node's ERR_INVALID_URL would keep its password, so it is not the cause. */
function clusterNodeUrl(node: string): URL {
  try {
    return new URL(node);
  } catch {
    throw new InvalidStoreUrlError(redactUrlText(node), "a Cluster node must be a URL (redis://host:port)", {
      source: "adapter-redis",
    });
  }
}

function describeClient(client: RedisAnyClient): string {
  return isClusterClient(client) ? "redis://(cluster client)" : "redis://(client)";
}

function assertPositive(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw new SkeinError(`${name} must be a positive whole number, not ${value}.`, {
      source: "adapter-redis",
    });
  }
}

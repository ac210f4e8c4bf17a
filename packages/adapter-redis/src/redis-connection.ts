import { SkeinError, StoreClosedError, StoreUnavailableError } from "@skein/thread-core";
import type { RedisArgument } from "redis";
import { CallDeadlines, CallTimedOut, LONGEST_TIMER_MS } from "./call-deadlines.js";
import type { LuaScript } from "./scripts/lua-script.js";

/** The part of a node-redis client (`createClient()`) the store uses. */
export interface RedisSingleClient {
  sendCommand(args: ReadonlyArray<RedisArgument>): Promise<unknown>;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on?(event: "error", listener: (error: unknown) => void): unknown;
}

/** The part of a node-redis cluster client (`createCluster()`) the store uses. */
export interface RedisClusterClient {
  sendCommand(
    firstKey: RedisArgument | undefined,
    isReadonly: boolean | undefined,
    args: ReadonlyArray<RedisArgument>,
  ): Promise<unknown>;
  readonly masters: ReadonlyArray<unknown>;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on?(event: "error", listener: (error: unknown) => void): unknown;
}

/** A node-redis client the store accepts: a single-server client or a Cluster client. */
export type RedisAnyClient = RedisSingleClient | RedisClusterClient;

export interface RedisConnectionOptions {
  client: RedisAnyClient;
  /** Whether the store created the client: then it connects it and `close()` closes it. */
  ownsClient: boolean;
  /** Every call fails with `StoreUnavailableError` after this long. */
  commandTimeoutMs: number;
  /** The server's URL without its password, for messages. */
  displayUrl: string;
}

/** Server errors that mean "not now" rather than "wrong": the call may be retried. */
const TRANSIENT_REPLY = /^(CLUSTERDOWN|TRYAGAIN|LOADING|BUSY|MASTERDOWN|READONLY|NOREPLICAS|OOM)\b/;

/**
 * One store's use of a client: every call is bounded by `commandTimeoutMs`, and failures to reach Redis
 * become `StoreUnavailableError` (retryable), so nothing hangs while Redis is away.
 */
export class RedisConnection {
  readonly cluster: boolean;
  readonly #options: RedisConnectionOptions;
  readonly #deadlines: CallDeadlines;
  #connected: Promise<unknown> | undefined;
  /** Set once the store's own client first connected; it reconnects by itself after that. */
  #ready = false;
  #closed = false;
  #listening = false;
  #refuseConnect: ((error: unknown) => void) | undefined;

  constructor(options: RedisConnectionOptions) {
    this.#options = options;
    this.#deadlines = new CallDeadlines(options.commandTimeoutMs);
    this.cluster = isClusterClient(options.client);
  }

  get client(): RedisAnyClient {
    return this.#options.client;
  }

  /** The bound every call has, as built from the store's options, its URL's `timeout`, or the default. */
  get commandTimeoutMs(): number {
    return this.#options.commandTimeoutMs;
  }

  /** Sends one command; `key` routes it on Cluster. */
  command(key: string | undefined, args: RedisArgument[], readonly = false): Promise<unknown> {
    return this.#call(() => this.#send(key, args, readonly));
  }

  /** Runs a Lua script by its SHA-1, loading it first where the server does not know it yet. */
  script(script: LuaScript, keys: string[], args: RedisArgument[]): Promise<unknown> {
    const command: RedisArgument[] = ["EVALSHA", script.sha, String(keys.length)];
    for (const key of keys) command.push(key);
    for (const arg of args) command.push(arg);
    return this.#call(() =>
      this.#send(keys[0], command, false).catch((error: unknown) => {
        if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
        return this.#send(keys[0], ["EVAL", script.source, ...command.slice(2)], false);
      }),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#options.ownsClient || this.#connected === undefined) return;
    const client = this.#options.client;
    if (!client.isReady) {
      client.destroy();
      return;
    }
    // A graceful close waits for commands in flight; a server that stopped answering gets no more time.
    const closing = client.close().catch(() => client.destroy());
    const late = await raceTimer(closing, this.#options.commandTimeoutMs);
    if (late) client.destroy();
  }

  /** What calls wait for until the store's own client first connects (connecting it on the first call). */
  #untilConnected(): Promise<unknown> | undefined {
    if (!this.#options.ownsClient || this.#ready) return undefined;
    const client = this.#options.client;
    if (this.#connected) return this.#connected;
    // A server that refuses the handshake (a wrong password), or a port where nothing listens, makes the
    // client retry forever; say so at once.
    if (!this.#listening) {
      this.#listening = true;
      client.on?.("error", (error) => {
        if (!this.#ready && (isErrorReply(error) || isConnectionRefused(error))) this.#refuseConnect?.(error);
      });
    }
    const refused = new Promise<never>((_, reject) => {
      this.#refuseConnect = reject;
    });
    refused.catch(() => {});
    this.#connected = Promise.race([client.connect(), refused]).then(
      () => {
        this.#ready = true;
      },
      (error) => {
        // Refused before it ever connected: stop its retries, so the next call connects afresh.
        if (isConnectionRefused(error) && client.isOpen) client.destroy();
        // A client that gave up (a cluster whose root nodes did not answer) is asked again on the next call.
        if (!client.isOpen) this.#connected = undefined;
        throw error;
      },
    );
    return this.#connected;
  }

  #send(key: string | undefined, args: RedisArgument[], readonly: boolean): Promise<unknown> {
    const client = this.#options.client;
    if (isClusterClient(client)) return client.sendCommand(key, readonly, args);
    return client.sendCommand(args);
  }

  #call<T>(run: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError({ source: "adapter-redis" }));
    const connecting = this.#untilConnected();
    let work: Promise<T>;
    if (connecting) work = connecting.then(run);
    else {
      // Even a client that throws at once is answered as a failed call.
      try {
        work = run();
      } catch (error) {
        work = Promise.reject(error);
      }
    }
    return this.#deadlines.bound(work, (error) =>
      this.#closed
        ? new StoreClosedError({ source: "adapter-redis", cause: error })
        : this.#storeError(error),
    );
  }

  #storeError(error: unknown): SkeinError {
    const url = this.#options.displayUrl;
    if (error instanceof CallTimedOut) {
      return new StoreUnavailableError(
        `Redis at ${url} did not answer within ${this.#options.commandTimeoutMs} ms.`,
        {
          source: "adapter-redis",
        },
      );
    }
    const message = String((error as Error)?.message ?? error);
    if (isConnectionRefused(error)) {
      const code = (error as NodeJS.ErrnoException).code;
      const what = code === "ENOTFOUND" ? "could not be found" : "refused the connection";
      return new StoreUnavailableError(
        `Redis at ${url} ${what} (${code}): nothing answers there. Start Redis, or check the host and port in the URL.`,
        { source: "adapter-redis", cause: error },
      );
    }
    if (isErrorReply(error) && /^(WRONGPASS|NOAUTH|NOPERM)\b/.test(message)) {
      return new SkeinError(
        `Redis at ${url} refused the credentials: ${message} Check the user and password in the URL.`,
        {
          source: "adapter-redis",
          cause: error,
        },
      );
    }
    if (isErrorReply(error) && !TRANSIENT_REPLY.test(message)) {
      return new SkeinError(`Redis at ${url} refused a command: ${message}`, {
        source: "adapter-redis",
        cause: error,
      });
    }
    return new StoreUnavailableError(`Redis at ${url} is unavailable: ${message}`, {
      source: "adapter-redis",
      cause: error,
    });
  }
}

/** A socket error that no retry soon will cure: nothing listens on the port, or the host is not known. */
function isConnectionRefused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ECONNREFUSED" || code === "ENOTFOUND";
}

export function isClusterClient(client: RedisAnyClient): client is RedisClusterClient {
  return "masters" in client;
}

/** A reply from the server (`ErrorReply` and its subclasses), recognised across installed copies of the client. */
function isErrorReply(error: unknown): boolean {
  let prototype = error === null || typeof error !== "object" ? null : Object.getPrototypeOf(error);
  while (prototype && prototype !== Error.prototype) {
    if (prototype.constructor?.name === "ErrorReply") return true;
    prototype = Object.getPrototypeOf(prototype);
  }
  return false;
}

/** Resolves true when `milliseconds` pass before `promise` settles. */
async function raceTimer(promise: Promise<unknown>, milliseconds: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), Math.min(milliseconds, LONGEST_TIMER_MS));
  });
  try {
    return await Promise.race([promise.then(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

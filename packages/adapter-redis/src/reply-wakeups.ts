import type { RedisConnection } from "./redis-connection.js";

/** The part of a node-redis client (single or Cluster) that subscribing takes: a duplicate of the store's. */
interface SubscriberClient {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  close(): Promise<void>;
  destroy(): void;
  on?(event: "error", listener: (error: unknown) => void): unknown;
}

/**
 * Wake-ups for followers of a streamed reply, over Redis pub/sub: a writer publishes on the reply's
 * channel after each batch (`notify`), and `watch` subscribes to it on one subscriber connection per
 * store (a `duplicate()` of its client, opened on the first watch). A message carries nothing and is not
 * kept: one published while nobody listens, or before a subscription is in place, costs a follower one
 * poll interval, never a delta (the deltas are in the reply's segment). A client that cannot be
 * duplicated, or a subscriber that cannot connect, leaves followers polling.
 */
export class ReplyWakeups {
  #subscriber: SubscriberClient | undefined;
  #connected: Promise<SubscriberClient | undefined> | undefined;
  #closed = false;

  constructor(
    readonly connection: RedisConnection,
    readonly prefix: string,
  ) {}

  /** The channel of a reply's segment; hash-tag free, so any node of a Cluster serves it. */
  channel(segment: string): string {
    return `${this.prefix}:reply:${segment}`;
  }

  async notify(segment: string): Promise<void> {
    const channel = this.channel(segment);
    await this.connection.command(channel, ["PUBLISH", channel, "1"]);
  }

  watch(segment: string, listener: () => void): () => void {
    const channel = this.channel(segment);
    const handler = () => listener();
    let stopped = false;
    const subscribed = this.#subscriberClient().then(async (client) => {
      if (!client || stopped) return undefined;
      await client.subscribe(channel, handler);
      return client;
    });
    // Never waits: a follower that stops must not hang on a subscriber that cannot connect.
    return () => {
      stopped = true;
      void subscribed.then((client) => client?.unsubscribe(channel, handler)).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#subscriber;
    this.#subscriber = undefined;
    if (!client) return;
    // A subscriber still connecting is destroyed: a graceful close would wait for a server that is away.
    const ready = await Promise.race([this.#connected, Promise.resolve(undefined)]);
    if (ready) await client.close().catch(() => client.destroy());
    else client.destroy();
  }

  #subscriberClient(): Promise<SubscriberClient | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    this.#connected ??= (async () => {
      const duplicate = (this.connection.client as { duplicate?: () => SubscriberClient }).duplicate;
      if (typeof duplicate !== "function") return undefined;
      const client = duplicate.call(this.connection.client);
      this.#subscriber = client;
      // Errors of the subscriber's connection are its own: followers poll meanwhile.
      client.on?.("error", () => undefined);
      await client.connect();
      return client;
    })().catch(() => undefined);
    return this.#connected;
  }
}

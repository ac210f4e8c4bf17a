import { createHash } from "node:crypto";
import pg from "pg";
import type { PostgresConnection } from "./postgres-connection.js";

/**
 * Wake-ups for followers of a streamed reply, over PostgreSQL `LISTEN`/`NOTIFY`: a writer notifies the
 * store's channel with the reply's segment id after each batch (`notify`), and `watch` listens on one
 * connection per store of its own (the pool's settings, outside the pool, so it never holds a pooled
 * connection), opened on the first watch. A notification carries only the segment id and is not kept:
 * one sent before the listener is in place costs a follower one poll interval, never a delta. A listener
 * that cannot connect leaves followers polling.
 */
export class ReplyWakeups {
  /** One channel per store (schema and table prefix), short enough for any identifier limit. */
  readonly channel: string;
  readonly #listeners = new Map<string, Set<() => void>>();
  #client: pg.Client | undefined;
  #listening: Promise<pg.Client | undefined> | undefined;
  #closed = false;

  constructor(readonly connection: PostgresConnection) {
    const digest = createHash("sha256").update(connection.names.prefix).digest("hex").slice(0, 32);
    this.channel = `skein_reply_${digest}`;
  }

  async notify(segment: string): Promise<void> {
    await this.connection.query("SELECT pg_notify($1, $2)", [this.channel, segment]);
  }

  watch(segment: string, listener: () => void): () => void {
    let set = this.#listeners.get(segment);
    if (!set) {
      set = new Set();
      this.#listeners.set(segment, set);
    }
    const handler = () => listener();
    set.add(handler);
    void this.#listen();
    return () => {
      set.delete(handler);
      if (set.size === 0) this.#listeners.delete(segment);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #listen(): Promise<pg.Client | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    this.#listening ??= (async () => {
      const client = new pg.Client(this.connection.pool.options);
      this.#client = client;
      // Errors of the listening connection are its own: followers poll meanwhile.
      client.on("error", () => undefined);
      client.on("notification", (notification) => {
        if (notification.channel !== this.channel || notification.payload === undefined) return;
        for (const listener of this.#listeners.get(notification.payload) ?? []) listener();
      });
      await client.connect();
      // The channel is made of a fixed word and hex digits: quoting it keeps its case.
      await client.query(`LISTEN "${this.channel}"`);
      if (this.#closed) await client.end();
      return client;
    })().catch(() => undefined);
    return this.#listening;
  }
}

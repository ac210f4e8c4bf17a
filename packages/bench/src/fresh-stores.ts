import { randomBytes } from "node:crypto";
import { type OpenStoreOptions, openStore, type ThreadStore } from "@skein/thread-core";
import { LocalStore } from "@skein/thread-core/driver";
import pg from "pg";
import { createClient } from "redis";
import { temporaryDirectory } from "./temporary-directory.js";

/** A store of its own for one scenario, and how to give back what it wrote. */
export interface FreshStore {
  store: ThreadStore;
  /** The store's URL, for another process to open it too; absent for memory. */
  url?: string;
  /** Closes the store and removes what it wrote (its directory, key prefix or schema). */
  dispose(): Promise<void>;
}

/** One kind of store the catalogue and branching rows run on. */
export interface StoreFactory {
  name: string;
  /** A new, empty store that shares nothing with any other this factory made; `options` go to `openStore`. */
  fresh(options?: OpenStoreOptions): Promise<FreshStore>;
  /** How many timed runs an operation of this store affords (fewer for slow ones, see `affordableRuns`). */
  runs: number;
}

function uniqueName(stem: string): string {
  return `${stem}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

export function memoryFactory(runs: number): StoreFactory {
  return {
    name: "memory",
    runs,
    fresh: async (options) => {
      const store = await openStore("memory:", options);
      return { store, dispose: () => store.close() };
    },
  };
}

/** fs stores in directories under the system's temp dir, removed when the bench exits. */
export function fsFactory(runs: number): StoreFactory {
  return {
    name: "fs",
    runs,
    fresh: async (options) => {
      const url = `file://${temporaryDirectory()}`;
      const store = await openStore(url, options);
      return { store, url, dispose: () => store.close() };
    },
  };
}

/**
 * Redis stores under key prefixes of their own. On a single server the prefix's keys are deleted afterwards,
 * so a REDIS_URL someone uses keeps only its own keys; a Cluster is the bench's own, stopped after the run.
 */
export function redisFactory(name: string, url: string, runs: number): StoreFactory {
  const cluster = new URL(url).searchParams.get("cluster") === "true";
  return {
    name,
    runs,
    fresh: async (options) => {
      const prefix = uniqueName("skein-bench");
      const target = new URL(url);
      target.searchParams.set("prefix", prefix);
      const store = await openStore(target.href, options);
      return {
        store,
        url: target.href,
        dispose: async () => {
          await store.close();
          if (!cluster) await deleteRedisKeys(url, prefix);
        },
      };
    },
  };
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    // The prefix is letters, digits and underscores: literal in a MATCH pattern.
    for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}

/** Postgres stores in schemas of their own, dropped afterwards. */
export function postgresFactory(url: string, runs: number): StoreFactory {
  return {
    name: "postgres",
    runs,
    fresh: async (options) => {
      const schema = uniqueName("bench_rows");
      const target = new URL(url);
      target.searchParams.set("schema", schema);
      const store = await openStore(target.href, options);
      return {
        store,
        url: target.href,
        dispose: async () => {
          await store.close();
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          } finally {
            await client.end();
          }
        },
      };
    },
  };
}

/**
 * How `store.list` finds a page here: through the driver's own catalogue index, or by a scan that reads every
 * record of the store (thread-core's fallback for a driver without one), whose cost grows with the store.
 */
export function listingKind(store: ThreadStore): "index" | "scan" {
  if (!(store instanceof LocalStore)) return "index";
  return typeof store.driver.catalogue === "function" ? "index" : "scan";
}

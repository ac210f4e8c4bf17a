import { createHash } from "node:crypto";
import {
  ConcurrencyError,
  defineThreadType,
  InvalidThreadStateError,
  ThreadNotFoundError,
  type ThreadState,
  ThreadStateSchema,
  type ThreadStore,
} from "@skein/thread-core";
import { incarnationOf, type ServiceRecord } from "./service-record.js";
import { deepFreeze, type ThreadConfig } from "./thread-config.js";

export const CONFIG_THREAD_TYPE = "thread-service.config";

/**
 * A thread's configuration, kept as a document of its own beside the thread: updating the thread's
 * metadata (where the service record and a copy of the configuration live) cannot reach it.
 */
export interface ConfigDocumentState extends ThreadState {
  $type: typeof CONFIG_THREAD_TYPE;
  $v: 1;
  id: string;
  /** The thread this configuration belongs to. */
  threadId: string;
  config: ThreadConfig;
  /** The `createdAt` of the thread's record, so a thread made again under a reused id is told apart. */
  createdAt: string;
  /** The record's `incarnation`: tells apart two threads of one id made in the same millisecond. */
  incarnation?: string;
}

/** The id of a thread's configuration document: a hash, so any valid thread id gives a short valid id. */
export function configIdOf(threadId: string): string {
  return `${CONFIG_THREAD_TYPE}:${createHash("sha256").update(threadId, "utf8").digest("base64url")}`;
}

/** Configurations this instance has read, by thread; they never change, so the bound is the only limit. */
const CACHE_LIMIT = 1024;

/**
 * Where the service reads a thread's configuration: the thread's create-once document, not the copy in
 * its metadata, so `thread.update({ metadata })` or a saved state cannot rewrite what a thread runs with.
 */
export class ConfigDocuments {
  readonly #cache = new Map<string, Readonly<ThreadConfig>>();

  constructor(readonly store: ThreadStore) {}

  /** Writes the document of a thread just created (replacing one a deleted thread of that id left). */
  async write(threadId: string, record: ServiceRecord): Promise<void> {
    const state = documentOf(threadId, record);
    await this.store.save(state);
    this.#remember(threadId, state);
  }

  /**
   * The record with the configuration the thread was created with. A thread without a document (made
   * before documents existed, or imported from another store) is adopted: its configuration as found is
   * written once, and from then on it is fixed. A document whose `createdAt` and `incarnation` are not the
   * record's belongs to an earlier thread of this id (deleted, its document left behind): it is replaced by
   * this thread's own.
   */
  async verified(threadId: string, record: ServiceRecord): Promise<ServiceRecord> {
    const key = cacheKey(threadId, record);
    let config = this.#cache.get(key);
    if (config === undefined) {
      const found = await this.#read(threadId);
      if (found && incarnationOf(found) === incarnationOf(record)) config = this.#remember(threadId, found);
      else if (found) config = await this.#replace(threadId, record);
      else config = await this.#adopt(threadId, record);
    }
    return { ...record, config };
  }

  /**
   * Replaces an earlier thread's document with this thread's configuration. Every instance that does this
   * writes the same document (the one for the record it read), and every reader checks `createdAt` and
   * `incarnation`, so a thread never runs with another's configuration.
   */
  async #replace(threadId: string, record: ServiceRecord): Promise<Readonly<ThreadConfig>> {
    const state = documentOf(threadId, record);
    await this.store.save(state);
    return this.#remember(threadId, state);
  }

  async #read(threadId: string): Promise<ConfigDocumentState | undefined> {
    try {
      const document = await this.store.getState(configIdOf(threadId));
      return document.$type === CONFIG_THREAD_TYPE
        ? checkConfigState(document as ConfigDocumentState)
        : undefined;
    } catch (error) {
      if (ThreadNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  async #adopt(threadId: string, record: ServiceRecord): Promise<Readonly<ThreadConfig>> {
    const state = documentOf(threadId, record);
    try {
      await this.store.save(state, { ifRevision: 0 });
      return this.#remember(threadId, state);
    } catch (error) {
      if (!ConcurrencyError.isInstance(error)) throw error;
      // Another instance wrote it first: its document is the configuration (if it is this thread's).
      const found = await this.#read(threadId);
      if (!found) throw error;
      if (incarnationOf(found) !== incarnationOf(record)) return this.#replace(threadId, record);
      return this.#remember(threadId, found);
    }
  }

  #remember(threadId: string, state: ConfigDocumentState): Readonly<ThreadConfig> {
    const config = deepFreeze(structuredClone(state.config));
    const key = cacheKey(threadId, state);
    this.#cache.delete(key);
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(key, config);
    return config;
  }
}

function documentOf(threadId: string, record: ServiceRecord): ConfigDocumentState {
  return {
    $type: CONFIG_THREAD_TYPE,
    $v: 1,
    id: configIdOf(threadId),
    threadId,
    config: structuredClone(record.config),
    createdAt: record.createdAt,
    ...(record.incarnation === undefined ? {} : { incarnation: record.incarnation }),
  };
}

function cacheKey(threadId: string, record: { createdAt: string; incarnation?: string }): string {
  return `${incarnationOf(record)}\n${threadId}`;
}

/**
 * The configuration document type, registered in a service's store registry so the store reads and writes
 * them. A plain state type (no `bind`): read with `store.getState`, written with `store.save(state)`; it
 * holds no messages and never changes once its thread is created.
 */
export const configDocumentType = defineThreadType<ConfigDocumentState>({
  type: CONFIG_THREAD_TYPE,
  version: 1,
  schema: ThreadStateSchema as never,
  packageName: "@skein/thread-service",
});

function checkConfigState(state: ConfigDocumentState): ConfigDocumentState {
  const valid =
    typeof state.threadId === "string" &&
    typeof state.config === "object" &&
    state.config !== null &&
    !Array.isArray(state.config) &&
    typeof state.createdAt === "string" &&
    (state.incarnation === undefined || typeof state.incarnation === "string");
  if (!valid) {
    throw new InvalidThreadStateError("not a thread-service configuration document", [], {
      source: "thread-service",
    });
  }
  return state;
}

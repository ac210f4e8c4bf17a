import { isDeepStrictEqual } from "node:util";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import {
  type MessageInput,
  type OpenStoreOptions,
  openStore,
  type Thread,
  ThreadNotFoundError,
  type ThreadStore,
} from "@skein/thread-core";
import { type KnownChannels, planChannels } from "./channel-entries.js";
import { CheckpointLog } from "./checkpoint-log.js";
import {
  type CheckpointContent,
  checkpointMessage,
  type WritesContent,
  writesMessage,
} from "./checkpoint-record.js";
import { CheckpointTuples, type RecentCheckpoint } from "./checkpoint-tuples.js";
import { CheckpointConfigError, CheckpointExistsError } from "./errors.js";
import { LangGraphThreads, type Target } from "./langgraph-threads.js";
import { RecordsPut } from "./records-put.js";
import { checkpointIdOf, namespaceOf, threadIdOf } from "./runnable-config.js";
import {
  assertCheckpoint,
  assertConfig,
  assertThreadId,
  assertWrites,
  checkSaverOptions,
} from "./saver-arguments.js";
import { skeinThreadId } from "./skein-thread-ids.js";
import { storeValue } from "./stored-value.js";

/** Options of `SkeinCheckpointSaver`: the store that keeps LangGraph's checkpoints. */
export interface SkeinCheckpointSaverOptions {
  /**
   * An open skein store (`await openStore(url)`) on `memory:`, `file:`, `redis://`, or one an adapter package
   * opens. A URL string is refused here: `SkeinCheckpointSaver.open(url)` opens it and closes it on `close()`.
   */
  store: ThreadStore;
  /**
   * Where this saver's skein threads live: `<prefix><thread_id>/<checkpoint_ns>`, escaped. At most 64
   * characters. @default "langgraph/"
   */
  prefix?: string;
  /** How values are serialized. @default LangGraph's JsonPlusSerializer */
  serde?: SerializerProtocol;
  /** Close the store when the saver is closed. @default false; true for `SkeinCheckpointSaver.open` */
  ownsStore?: boolean;
}

/**
 * A LangGraph checkpointer on any skein store. Each (thread_id, checkpoint_ns) is one skein thread whose
 * messages are the checkpoint and writes records, each `put` and `putWrites` one atomic append with a
 * deterministic message id (a retry is a no-op), and channel values LangGraph did not change are not
 * stored again.
 * @example const saver = await SkeinCheckpointSaver.open("file:./.skein"); const graph = builder.compile({ checkpointer: saver });
 */
export class SkeinCheckpointSaver extends BaseCheckpointSaver {
  readonly store: ThreadStore;
  readonly prefix: string;
  readonly #ownsStore: boolean;
  readonly #threads: LangGraphThreads;
  readonly #tuples: CheckpointTuples;
  readonly #recordsPut = new RecordsPut();

  constructor(options: SkeinCheckpointSaverOptions) {
    const checked = checkSaverOptions(options);
    super(checked.serde);
    this.store = checked.store;
    this.prefix = checked.prefix;
    this.#ownsStore = checked.ownsStore;
    this.#threads = new LangGraphThreads(this.store, this.prefix);
    this.#tuples = new CheckpointTuples(this.serde, (current) => this.getNextVersion(current));
  }

  /** A saver on the store a URL names (`memory:`, `file:./.skein`, `redis://…`); `close()` closes it. */
  static async open(
    url: string,
    options: OpenStoreOptions & Omit<SkeinCheckpointSaverOptions, "store" | "ownsStore"> = {},
  ): Promise<SkeinCheckpointSaver> {
    const { adapters, registry, ...rest } = options;
    const store = await openStore(url, {
      ...(adapters ? { adapters } : {}),
      ...(registry ? { registry } : {}),
    });
    return new SkeinCheckpointSaver({ ...rest, store, ownsStore: true });
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    assertConfig("getTuple", config);
    const threadId = threadIdOf(config, false);
    if (threadId === undefined) return undefined;
    const target = this.#threads.target(threadId, namespaceOf(config));
    const thread = await this.#threads.existing(target.skeinId);
    if (!thread) return undefined;
    const checkpointId = checkpointIdOf(config);
    const log = new CheckpointLog(thread);
    try {
      return checkpointId
        ? await this.#tuples.byId(target, log, checkpointId)
        : await this.#tuples.latest(target, log);
    } catch (error) {
      return this.#whenGone(target.skeinId, error, undefined);
    }
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    assertConfig("list", config);
    const threadId = threadIdOf(config, false);
    const namespace = config.configurable?.checkpoint_ns as string | undefined;
    const checkpointId = checkpointIdOf(config);
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    for await (const target of this.#threads.targets(threadId, namespace)) {
      const thread = await this.#threads.existing(target.skeinId);
      if (!thread) continue;
      const tuples = this.#tuples.list(target, new CheckpointLog(thread), {
        before: options.before ? checkpointIdOf(options.before) : undefined,
        filter: options.filter,
        checkpointId,
      });
      try {
        for await (const tuple of tuples) {
          yield tuple;
          if (--remaining <= 0) return;
        }
      } catch (error) {
        this.#whenGone(target.skeinId, error, undefined);
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    assertConfig("put", config);
    assertCheckpoint(checkpoint);
    const threadId = threadIdOf(config, true) as string;
    const target = this.#threads.target(threadId, namespaceOf(config));
    const parentId = checkpointIdOf(config) || undefined;
    const { channel_values: values, ...rest } = checkpoint;
    let known: KnownChannels = new Map();
    await this.#append(target, async (thread) => {
      const log = new CheckpointLog(thread);
      const last = await this.#tuples.lastRecord(target, log);
      const lastHead = last ? (last.headId ?? last.checkpointId) : undefined;
      const parent = parentId ? await this.#tuples.parentChannels(target, log, parentId) : undefined;
      const planned = await planChannels({
        serde: this.serde,
        checkpointId: checkpoint.id,
        values: values ?? {},
        versions: checkpoint.channel_versions ?? {},
        newVersions: newVersions ?? {},
        parent,
      });
      known = planned.known;
      const content: CheckpointContent = {
        type: "langgraph.checkpoint",
        checkpointId: checkpoint.id,
        ...(parentId === undefined ? {} : { parentId }),
        headId: lastHead !== undefined && lastHead > checkpoint.id ? lastHead : checkpoint.id,
        checkpoint: await storeValue(this.serde, { ...rest, channel_values: {} }),
        metadata: await storeValue(this.serde, metadata),
        channels: planned.entries,
      };
      const existing = await log.record(checkpoint.id);
      if (existing) {
        // A retry re-sends what is stored (a no-op); anything else would change a checkpoint in place.
        if (!sameCheckpoint(existing, content))
          throw new CheckpointExistsError(target.skeinId, checkpoint.id);
        return undefined;
      }
      return checkpointMessage(content, checkpoint.ts);
    });
    this.#recordsPut.put(recordKey(target, checkpoint.id));
    const recent: RecentCheckpoint = { checkpointId: checkpoint.id, channels: known };
    this.#tuples.remember(target.skeinId, recent);
    return {
      configurable: { thread_id: threadId, checkpoint_ns: target.namespace, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    assertConfig("putWrites", config);
    assertWrites(writes);
    const threadId = threadIdOf(config, true) as string;
    const checkpointId = checkpointIdOf(config);
    if (!checkpointId) {
      throw new CheckpointConfigError(
        "checkpoint_id",
        "is missing: writes belong to a checkpoint; pass the config put() returned",
      );
    }
    const target = this.#threads.target(threadId, namespaceOf(config));
    const content: WritesContent = {
      type: "langgraph.writes",
      checkpointId,
      taskId,
      taskPath: taskPath ?? "",
      writes: await Promise.all(
        writes.map(async ([channel, value], index) => ({
          index: WRITES_IDX_MAP[channel] ?? index,
          channel,
          value: await storeValue(this.serde, value),
        })),
      ),
    };
    const message = writesMessage(content);
    await this.#afterRecord(target, checkpointId);
    await this.#append(target, async () => message);
  }

  async deleteThread(threadId: string): Promise<void> {
    assertThreadId(threadId);
    for await (const target of this.#threads.targets(String(threadId), undefined)) {
      this.#threads.forget(target.skeinId);
      this.#tuples.forget(target.skeinId);
      await this.store.delete(target.skeinId);
    }
  }

  /** The id of the skein thread that holds a LangGraph thread's checkpoints in one namespace. */
  skeinThreadId(threadId: string, checkpointNs = ""): string {
    return skeinThreadId(this.prefix, threadId, checkpointNs);
  }

  /** Closes the store if the saver opened it (`SkeinCheckpointSaver.open`). */
  async close(): Promise<void> {
    this.#threads.clear();
    if (this.#ownsStore) await this.store.close();
  }

  /**
   * One atomic append of the message `build` makes against the thread. A thread another process deleted
   * since this saver opened it is made again and the message planned afresh: what it referred to is gone.
   */
  async #append(target: Target, build: (thread: Thread) => Promise<MessageInput | undefined>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const thread = await this.#threads.opened(target);
      try {
        const message = await build(thread);
        if (message) await thread.append(message);
        return;
      } catch (error) {
        if (!ThreadNotFoundError.isInstance(error) || attempt > 0) throw error;
        this.#threads.forget(target.skeinId);
        this.#tuples.forget(target.skeinId);
      }
    }
  }

  /** Waits (bounded) until the record of `checkpointId` is in the log, so that its writes follow it (`RecordsPut`). */
  async #afterRecord(target: Target, checkpointId: string): Promise<void> {
    const key = recordKey(target, checkpointId);
    if (this.#recordsPut.has(key)) return;
    const thread = await this.#threads.existing(target.skeinId);
    if (thread && (await new CheckpointLog(thread).record(checkpointId).catch(() => undefined))) return;
    await this.#recordsPut.until(key);
  }

  /** A thread deleted under a read (by `deleteThread` elsewhere) reads as empty; other errors stand. */
  #whenGone<T>(id: string, error: unknown, empty: T): T {
    if (!ThreadNotFoundError.isInstance(error)) throw error;
    this.#threads.forget(id);
    this.#tuples.forget(id);
    return empty;
  }
}

/** The same checkpoint put again: equal in all but `headId`, which depends on what was put since. */
function sameCheckpoint(stored: CheckpointContent, again: CheckpointContent): boolean {
  const { headId: _storedHead, ...storedRest } = stored;
  const { headId: _againHead, ...againRest } = again;
  return isDeepStrictEqual(storedRest, againRest);
}

/** A checkpoint's record in one skein thread. */
function recordKey(target: Target, checkpointId: string): string {
  return `${target.skeinId}\n${checkpointId}`;
}

import { isDeepStrictEqual } from "node:util";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  maxChannelVersion,
  type SerializerProtocol,
  TASKS,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import {
  type KnownChannels,
  knownChannels,
  type ParentChannels,
  type RecordLookup,
  storedItems,
} from "./channel-entries.js";
import type { CheckpointLog } from "./checkpoint-log.js";
import { type CheckpointContent, readLogEntry, type WritesContent } from "./checkpoint-record.js";
import { CheckpointRecordError } from "./errors.js";
import type { Target } from "./langgraph-threads.js";
import { loadValue, type StoredValue } from "./stored-value.js";

/** The checkpoint a saver last put or read on a skein thread, so the next `put` plans without reading. */
export interface RecentCheckpoint {
  checkpointId: string;
  channels: KnownChannels;
}

/** Skein threads whose latest checkpoint is remembered: its channels' owners and hashes, never their items. */
const REMEMBERED_THREADS = 64;

export interface ListFilter {
  before?: string | undefined;
  filter?: Record<string, unknown> | undefined;
  checkpointId?: string | undefined;
}

type ChannelVersionSource = (current: number | undefined) => number | string;

/** Builds LangGraph checkpoint tuples from a skein thread's records. */
export class CheckpointTuples {
  readonly #recent = new Map<string, RecentCheckpoint>();

  constructor(
    readonly serde: SerializerProtocol,
    readonly nextVersion: ChannelVersionSource,
  ) {}

  remember(skeinId: string, recent: RecentCheckpoint): void {
    this.#recent.delete(skeinId);
    this.#recent.set(skeinId, recent);
    if (this.#recent.size > REMEMBERED_THREADS)
      this.#recent.delete(this.#recent.keys().next().value as string);
  }

  forget(skeinId: string): void {
    this.#recent.delete(skeinId);
  }

  /** What a `put` needs of its parent: from memory when it is the checkpoint last seen here, else from the store. */
  async parentChannels(
    target: Target,
    log: CheckpointLog,
    parentId: string,
  ): Promise<ParentChannels | undefined> {
    const lookup = lookupIn(log);
    const recent = this.#recent.get(target.skeinId);
    let channels: KnownChannels;
    if (recent?.checkpointId === parentId) {
      channels = recent.channels;
    } else {
      const record = await log.record(parentId);
      if (!record) return undefined;
      channels = knownChannels(parentId, record.channels);
    }
    return {
      id: parentId,
      channels,
      items: async (channel) => {
        const known = channels.get(channel);
        return known ? storedItems(target.skeinId, lookup, known.owner, channel) : undefined;
      },
    };
  }

  async byId(target: Target, log: CheckpointLog, checkpointId: string): Promise<CheckpointTuple | undefined> {
    const record = await log.record(checkpointId);
    if (!record) return undefined;
    return this.#tuple(target, log, record, await log.writesAfter(checkpointId), true);
  }

  /** The record put last on the thread, found from the end of its log, or undefined when it has none. */
  async lastRecord(target: Target, log: CheckpointLog): Promise<CheckpointContent | undefined> {
    for await (const message of log.newestFirst()) {
      const entry = readLogEntry(target.skeinId, message);
      if (entry.kind === "checkpoint") return entry.content;
    }
    return undefined;
  }

  /**
   * The checkpoint with the highest id (LangGraph's "latest", as its own savers answer): the last record
   * says which (`headId`); it is that record itself unless a lower id was put after a higher one.
   */
  async latest(target: Target, log: CheckpointLog): Promise<CheckpointTuple | undefined> {
    const newerWrites: WritesContent[] = [];
    for await (const message of log.newestFirst()) {
      const entry = readLogEntry(target.skeinId, message);
      if (entry.kind === "writes") newerWrites.push(entry.content);
      if (entry.kind !== "checkpoint") continue;
      const id = entry.content.checkpointId;
      const head = entry.content.headId ?? id;
      if (head !== id) return this.byId(target, log, head);
      const writes = newerWrites.filter((content) => content.checkpointId === id).reverse();
      return this.#tuple(target, log, entry.content, writes, true);
    }
    return undefined;
  }

  /**
   * The thread's checkpoints, highest id first (as LangGraph's savers list them), with their writes; one
   * pass from the end of the log. Records are put in id order almost always, so each is yielded as it is
   * read; one put after a higher id waits in `waiting` until no unread record can be higher (`headId`).
   */
  async *list(target: Target, log: CheckpointLog, options: ListFilter): AsyncGenerator<CheckpointTuple> {
    if (options.checkpointId !== undefined) {
      const record = await log.record(options.checkpointId);
      if (!record) return;
      const passing = await this.#passing(record, options);
      if (!passing) return;
      const writes = await log.writesAfter(record.checkpointId);
      yield await this.#tuple(target, log, record, writes, true, passing.metadata);
      return;
    }
    const pending = new Map<string, WritesContent[]>();
    const waiting: { record: CheckpointContent; writes: WritesContent[] }[] = [];
    for await (const message of log.newestFirst()) {
      const entry = readLogEntry(target.skeinId, message);
      if (entry.kind === "writes") {
        const list = pending.get(entry.content.checkpointId) ?? [];
        list.push(entry.content);
        pending.set(entry.content.checkpointId, list);
      }
      if (entry.kind !== "checkpoint") continue;
      const id = entry.content.checkpointId;
      const writes = (pending.get(id) ?? []).reverse();
      pending.delete(id);
      if (options.before === undefined || id < options.before)
        waiting.push({ record: entry.content, writes });
      // Every record before this one has an id at most its headId: what is above that can go out now.
      const bound = entry.content.headId ?? id;
      waiting.sort((left, right) => byIdDescending(left.record, right.record));
      while (
        waiting.length > 0 &&
        (waiting[0] as { record: CheckpointContent }).record.checkpointId >= bound
      ) {
        const next = waiting.shift() as { record: CheckpointContent; writes: WritesContent[] };
        const passing = await this.#passing(next.record, options);
        if (passing) yield await this.#tuple(target, log, next.record, next.writes, false, passing.metadata);
      }
    }
    for (const next of waiting) {
      const passing = await this.#passing(next.record, options);
      if (passing) yield await this.#tuple(target, log, next.record, next.writes, false, passing.metadata);
    }
  }

  /**
   * `{ metadata }` of the record when the checkpoint passes `before` and `filter`, else undefined. Asked of the record
   * alone, before its channel values, ancestors and writes are read: a checkpoint the filter leaves out costs
   * the reading of its metadata only. (The filter is over each checkpoint's own metadata, which differs from
   * one checkpoint of a thread to the next, so the store's `where`, which picks whole threads, cannot answer it.)
   */
  async #passing(
    record: CheckpointContent,
    options: ListFilter,
  ): Promise<{ metadata: CheckpointMetadata } | undefined> {
    if (options.before !== undefined && !(record.checkpointId < options.before)) return undefined;
    const metadata = (await loadValue(this.serde, record.metadata)) as CheckpointMetadata;
    const fields = (metadata ?? {}) as Record<string, unknown>;
    const passes = Object.entries(options.filter ?? {}).every(([key, value]) =>
      isDeepStrictEqual(Object.hasOwn(fields, key) ? fields[key] : undefined, value),
    );
    return passes ? { metadata } : undefined;
  }

  async #tuple(
    target: Target,
    log: CheckpointLog,
    record: CheckpointContent,
    writes: WritesContent[],
    rememberIt: boolean,
    /** The record's metadata when the caller read it already. */
    metadata?: CheckpointMetadata,
  ): Promise<CheckpointTuple> {
    const lookup = lookupIn(log);
    const checkpoint = (await loadValue(this.serde, record.checkpoint)) as Checkpoint;
    const channelValues: Record<string, unknown> = {};
    const known = knownChannels(record.checkpointId, record.channels);
    for (const entry of record.channels) {
      const owner = "from" in entry ? entry.from : record.checkpointId;
      const ownerEntries = owner === record.checkpointId ? record.channels : await lookup(owner);
      const stored = ownerEntries?.find((candidate) => candidate.channel === entry.channel);
      if (!stored || "from" in stored) {
        throw new CheckpointRecordError(
          target.skeinId,
          `channel ${JSON.stringify(entry.channel)} of checkpoint ${JSON.stringify(record.checkpointId)} refers to a record that does not hold it`,
        );
      }
      let value: unknown;
      if ("value" in stored) {
        value = await loadValue(this.serde, stored.value);
      } else {
        const items = (await storedItems(target.skeinId, lookup, owner, entry.channel)) as StoredValue[];
        value = await Promise.all(items.map((item) => loadValue(this.serde, item)));
      }
      // defineProperty: a channel named __proto__ is a key like any other, not the object's prototype.
      Object.defineProperty(channelValues, entry.channel, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    checkpoint.channel_values = channelValues;
    if (checkpoint.v < 4 && record.parentId !== undefined) {
      await this.#migratePendingSends(checkpoint, await log.writesAfter(record.parentId));
    }
    if (rememberIt) this.remember(target.skeinId, { checkpointId: record.checkpointId, channels: known });
    const configurable = {
      thread_id: target.threadId,
      checkpoint_ns: target.namespace,
    };
    const tuple: CheckpointTuple = {
      config: { configurable: { ...configurable, checkpoint_id: record.checkpointId } },
      checkpoint,
      metadata: metadata ?? ((await loadValue(this.serde, record.metadata)) as CheckpointMetadata),
      pendingWrites: await this.#pendingWrites(writes),
    };
    if (record.parentId !== undefined) {
      tuple.parentConfig = {
        configurable: { ...configurable, checkpoint_id: record.parentId },
      } as RunnableConfig;
    }
    return tuple;
  }

  /**
   * LangGraph's order of a superstep's writes (`writesSortKey`); a task's write at an index it already
   * wrote is ignored, except the special channels (errors, interrupts), whose latest write counts.
   */
  async #pendingWrites(records: WritesContent[]): Promise<CheckpointPendingWrite[]> {
    const chosen = new Map<
      string,
      { taskId: string; taskPath: string; index: number; channel: string; value: StoredValue }
    >();
    for (const record of records) {
      for (const write of record.writes) {
        const key = JSON.stringify([record.taskId, write.index]);
        if (write.index >= 0 && chosen.has(key)) continue;
        chosen.set(key, { taskId: record.taskId, taskPath: record.taskPath, ...write });
      }
    }
    const ordered = [...chosen.values()].sort((left, right) =>
      compareWritesSortKeys(
        writesSortKey(left.taskPath, left.taskId, left.index),
        writesSortKey(right.taskPath, right.taskId, right.index),
      ),
    );
    return Promise.all(
      ordered.map(
        async (write) =>
          [write.taskId, write.channel, await loadValue(this.serde, write.value)] as CheckpointPendingWrite,
      ),
    );
  }

  /** Checkpoints before format 4 kept pending sends as their parent's writes: LangGraph reads them as a channel. */
  async #migratePendingSends(checkpoint: Checkpoint, parentWrites: WritesContent[]): Promise<void> {
    const sends = (await this.#pendingWrites(parentWrites)).filter(([, channel]) => channel === TASKS);
    checkpoint.channel_values[TASKS] = sends.map(([, , value]) => value);
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.nextVersion(undefined);
  }
}

function byIdDescending(left: CheckpointContent, right: CheckpointContent): number {
  if (left.checkpointId === right.checkpointId) return 0;
  return left.checkpointId > right.checkpointId ? -1 : 1;
}

function lookupIn(log: CheckpointLog): RecordLookup {
  return async (checkpointId) => (await log.record(checkpointId))?.channels;
}

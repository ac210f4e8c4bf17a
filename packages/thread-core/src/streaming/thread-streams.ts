import { catalogueOf } from "../catalogue/catalogue-fields.js";
import { ConcurrencyError, ConflictError, HeadMovedError, InvalidOptionError } from "../errors.js";
import { newRandomId, newSortableId } from "../ids.js";
import { newHeadSegment } from "../local/log-driver.js";
import type { ChainRange, SegmentChains } from "../local/segment-chain.js";
import { ROLES } from "../message.js";
import { describeGiven, objectArgument } from "../option-value.js";
import { checkMessageId } from "../read-options.js";
import type { CommitResult, LogChange, LogDriver, LogRecord, SegmentInfo } from "../spec/log-driver.js";
import type { Content, Message } from "../spec/message.js";
import type { BeginMessageOptions, StreamingReply } from "../spec/streaming.js";
import { type ReplySettings, ReplyWriter } from "./reply-writer.js";
import type { StreamAccess } from "./stream-access.js";
import { ALL_BATCHES, batchDeltas, mergeDeltas } from "./stream-deltas.js";
import { lapsedStreams, type StreamEntry, streamsOf, withStreams } from "./stream-entries.js";
import { StreamInProgressError } from "./stream-errors.js";
import { forgetLease, lapsedOf } from "./stream-leases.js";
import { announce } from "./stream-wakeups.js";

/** What the streaming operations need of the thread they work on (a `LogThread`). */
export interface StreamHost {
  readonly threadId: string;
  readonly driver: LogDriver;
  readonly chains: SegmentChains;
  /** The record as last read or committed. */
  record(): LogRecord;
  /** Reads the record again, without ending lapsed replies. */
  reread(): Promise<LogRecord>;
  /** Commits through the thread, which keeps the record it answers. */
  commit(change: LogChange): Promise<CommitResult>;
  /** The messages of the log as `record` ends it. */
  chainOf(record: LogRecord): Promise<ChainRange[]>;
}

/** Enough for any realistic contention on one thread's record; past it the last error is thrown. */
const MAX_ATTEMPTS = 100;

const DEFAULTS: ReplySettings = { flushMs: 50, maxBatchBytes: 16_384, leaseMs: 30_000 };

/**
 * Replies that stream into one local thread: beginning one, writing its end into the log, renewing a
 * writer's lease and ending, `interrupted`, the replies whose lease lapsed. Each change to the record is a
 * commit pinned to the revision it read (retried on a fresh read), so two processes that find the same
 * lapsed reply end it once, and a writer never ends a reply a reader ended already.
 */
export class ThreadStreams implements StreamAccess {
  #settling = false;

  constructor(readonly host: StreamHost) {}

  get threadId(): string {
    return this.host.threadId;
  }

  get owner(): string | undefined {
    return catalogueOf(this.host.record().context).owner;
  }
  get driver(): LogDriver {
    return this.host.driver;
  }

  segmentInfo(entry: StreamEntry): SegmentInfo {
    return { id: entry.segment, base: null, start: 0, createdAt: entry.createdAt };
  }

  async begin(options: BeginMessageOptions): Promise<StreamingReply> {
    const checked = checkBeginOptions(options);
    const given = checked.id !== undefined;
    const id = checked.id ?? newSortableId();
    checkMessageId("thread.beginMessage", "id", id);
    // A write: replies whose writer died are ended first, so they neither block this one nor linger. On the
    // record this thread holds: the commit below is pinned to its revision, so a record that moved on since
    // (another process began a reply, say) fails it, and the next attempt reads the record and decides again.
    await this.settleLapsed();
    const createdAt = new Date().toISOString();
    // The reply's segment is named here but written by its first batch: until then a follower reads it as
    // empty, and a refused or abandoned begin leaves nothing behind.
    const segment = newHeadSegment(this.driver, this.threadId, null, 0);
    const entry: StreamEntry = {
      id,
      role: checked.role,
      ...(checked.author === undefined ? {} : { authorName: checked.author }),
      createdAt,
      segment: segment.id,
      writer: newRandomId("writer"),
      leaseUntil: Date.now() + checked.settings.leaseMs,
      leaseMs: checked.settings.leaseMs,
    };
    // One commit, pinned to the revision the decision was made on: a racing writer makes it read again and
    // decide again, so nothing is written for a refused reply. The record this thread holds may be behind
    // (a reply it shows may have ended since), so a refusal is only ever decided on a fresh read.
    for (let attempt = 1; ; attempt++) {
      const record = attempt === 1 ? this.host.record() : await this.host.reread();
      try {
        await this.#admit(record, id, checked.concurrent, given);
      } catch (error) {
        if (attempt === 1) continue;
        throw error;
      }
      entry.leaseUntil = Date.now() + checked.settings.leaseMs;
      try {
        await this.host.commit({
          expectHead: record.head,
          ifRevision: record.revision,
          context: withStreams(record.context, [...streamsOf(record.context), entry]),
          // Lost in a crash of the store's server, the begin takes nothing with it that `end` would land.
          interim: true,
        });
        break;
      } catch (error) {
        if (!raced(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
    return new ReplyWriter(this, entry, checked.settings);
  }

  /**
   * Lands the finished message and drops the reply's entry in one commit, planned on the record this thread
   * holds (its own begin's commit, most often: a reply costs no read at its end) and read again only when
   * another writer moved the thread. `batched` says whether any batch went to the reply's segment, which is
   * then reclaimed.
   */
  async landReply(
    entry: StreamEntry,
    contents: Content[],
    status: "interrupted" | undefined,
    metadata: Message["metadata"] | undefined,
    batched: boolean,
  ): Promise<Message | undefined> {
    // A driver that reclaims in the commit lands the message and drops the batches in one step.
    const inCommit = batched && this.driver.reclaimsInCommit === true;
    const stored = await this.#retrying(async (record) => {
      const streams = streamsOf(record.context);
      if (!streams.some((stream) => sameWriter(stream, entry))) return undefined;
      const message = replyMessage(entry, contents, status, metadata);
      const ended = (stream: StreamEntry) => sameWriter(stream, entry);
      const [landed] = await this.#land(record, [message], ended, inCommit ? entry.segment : undefined);
      return landed;
    }, false);
    if (stored !== undefined && batched) {
      if (inCommit) forgetLease(entry.segment);
      else await this.dropBatches(entry);
    }
    return stored;
  }

  /**
   * Reclaims a reply's segment of batches once the message is in the log (or nothing will land it): the log
   * holds the message once. A failed drop only leaves the segment behind, as a crash here would.
   */
  async dropBatches(entry: StreamEntry): Promise<void> {
    forgetLease(entry.segment);
    await this.driver.dropSegment?.(entry.segment).catch(() => undefined);
  }

  async holds(entry: StreamEntry): Promise<boolean> {
    const record = await this.host.reread();
    return streamsOf(record.context).some((stream) => sameWriter(stream, entry));
  }

  /**
   * Ends every reply of the record whose lease lapsed: `interrupted`, holding every delta flushed. A no-op
   * when there is none; called by the thread after each read and commit.
   */
  async settleLapsed(): Promise<void> {
    if (this.#settling || lapsedStreams(this.host.record().context).length === 0) return;
    this.#settling = true;
    try {
      await this.#retrying(async (record) => {
        const lapsed = await lapsedOf(this.driver, lapsedStreams(record.context));
        if (lapsed.length === 0) return;
        const messages = await Promise.all(
          lapsed.map(async (entry) => replyMessage(entry, await this.flushedContents(entry), "interrupted")),
        );
        await this.#land(record, messages, (stream) => lapsed.some((entry) => sameWriter(entry, stream)));
        await Promise.all(
          lapsed.map(async (entry) => {
            await this.dropBatches(entry);
            announce(this.driver, entry.segment);
          }),
        );
      }, false);
    } finally {
      this.#settling = false;
    }
  }

  /** The replies streaming in `record`, as `messages()` shows them: `status: "streaming"`, flushed deltas. */
  async streamingMessages(record: LogRecord): Promise<Message[]> {
    return Promise.all(
      streamsOf(record.context).map(async (entry) =>
        replyMessage(entry, await this.flushedContents(entry), "streaming"),
      ),
    );
  }

  /** A reply's flushed deltas, joined as its message will hold them. */
  async flushedContents(entry: StreamEntry): Promise<Content[]> {
    return mergeDeltas(batchDeltas(await this.driver.readSegment(entry.segment, 0, ALL_BATCHES)));
  }

  /**
   * Refuses a reply while another streams (unless `concurrent`), and an id the thread holds: looked up only
   * when the caller `given` it (a sortable id made here is new).
   */
  async #admit(record: LogRecord, id: string, concurrent: boolean, given: boolean): Promise<void> {
    const streams = streamsOf(record.context);
    if (!concurrent) {
      const lapsed = await lapsedOf(this.driver, streams);
      const other = streams.find((stream) => !lapsed.includes(stream));
      if (other) throw new StreamInProgressError(this.threadId, other.id, this.#source);
    }
    const held =
      streams.some((stream) => stream.id === id) ||
      (given && (await this.host.chains.message(await this.host.chainOf(record), id)) !== undefined);
    if (held) {
      throw new ConflictError(
        `Thread ${JSON.stringify(this.threadId)} already has a message ${JSON.stringify(id)}; nothing was written. Give beginMessage another id, or none.`,
        id,
        this.#source,
      );
    }
  }

  get #source() {
    return { source: this.driver.source };
  }

  /**
   * Appends `messages` and drops the entries `ended` picks (and reclaims the segment `reclaim`, for a driver that
   * can in its commit), in one commit pinned to `record`'s revision.
   */
  async #land(
    record: LogRecord,
    messages: Message[],
    ended: (stream: StreamEntry) => boolean,
    reclaim?: string,
  ): Promise<Message[]> {
    const change = {
      ...(reclaim === undefined ? {} : { reclaim }),
      expectHead: record.head,
      ifRevision: record.revision,
      context: withStreams(
        record.context,
        streamsOf(record.context).filter((stream) => !ended(stream)),
      ),
    };
    const result = await this.host.commit({ ...change, append: messages });
    if (!result.held) return result.messages;
    // Ids already in the head (the message landed, its entry left behind by a damaged store): keep those.
    const held = new Set(result.held.map((message) => message.id));
    const rest = messages.filter((message) => !held.has(message.id));
    const again = await this.host.commit({ ...change, ...(rest.length > 0 ? { append: rest } : {}) });
    const stored = new Map([...result.held, ...again.messages].map((message) => [message.id, message]));
    return messages.map((message) => stored.get(message.id) as Message);
  }

  /**
   * Runs `change` on a fresh read of the record, and again on a newer one while another writer moves the
   * record between the read and the commit (`ConcurrencyError`, `HeadMovedError`).
   */
  async #retrying<T>(change: (record: LogRecord) => Promise<T>, fresh = true): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const record = fresh || attempt > 1 ? await this.host.reread() : this.host.record();
      try {
        return await change(record);
      } catch (error) {
        if (!raced(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}

/** Another writer moved the record between the read and the commit: read again and retry. */
function raced(error: unknown): boolean {
  return ConcurrencyError.isInstance(error) || HeadMovedError.isInstance(error);
}

function sameWriter(a: StreamEntry, b: StreamEntry): boolean {
  return a.id === b.id && a.writer === b.writer;
}

/** The message a reply is: what its entry says of it, with these contents and status. */
export function replyMessage(
  entry: StreamEntry,
  contents: Content[],
  status: "streaming" | "interrupted" | undefined,
  metadata?: Message["metadata"],
): Message {
  return {
    id: entry.id,
    role: entry.role,
    createdAt: entry.createdAt,
    ...(entry.authorName === undefined ? {} : { authorName: entry.authorName }),
    contents,
    ...(metadata === undefined ? {} : { metadata }),
    ...(status === undefined ? {} : { status }),
  };
}

/** `beginMessage`'s options, checked before anything is written. */
function checkBeginOptions(options: BeginMessageOptions) {
  const method = "thread.beginMessage";
  const given = objectArgument(method, "options", options, '{ role: "assistant" }');
  if (!(ROLES as readonly unknown[]).includes(given.role)) {
    throw new InvalidOptionError(method, "role", `one of ${ROLES.join(", ")}`, describeGiven(given.role));
  }
  if (given.author !== undefined && (typeof given.author !== "string" || given.author.length === 0)) {
    throw new InvalidOptionError(method, "author", "a name (a string)", describeGiven(given.author));
  }
  if (given.concurrent !== undefined && typeof given.concurrent !== "boolean") {
    throw new InvalidOptionError(method, "concurrent", "true or false", describeGiven(given.concurrent));
  }
  const settings = { ...DEFAULTS };
  for (const key of ["flushMs", "maxBatchBytes", "leaseMs"] as const) {
    const value = given[key];
    if (value === undefined) continue;
    const least = key === "flushMs" ? 0 : 1;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least) {
      throw new InvalidOptionError(method, key, `a whole number of ${least} or more`, describeGiven(value));
    }
    settings[key] = value;
  }
  return {
    role: given.role,
    id: given.id,
    author: given.author,
    concurrent: given.concurrent === true,
    settings,
  };
}

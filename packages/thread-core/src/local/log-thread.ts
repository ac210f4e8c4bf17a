import { catalogueOf, changedCatalogue, withCatalogue } from "../catalogue/catalogue-fields.js";
import { assertCheckpointLabel } from "../checkpoint-label.js";
import {
  ConcurrencyError,
  HeadMovedError,
  InvalidOperationIdError,
  InvalidOptionError,
  PointNotFoundError,
  SkeinError,
  ThreadNotFoundError,
  ThreadReplacedError,
  UnsupportedOperationError,
} from "../errors.js";
import { assertThreadId, newRandomId, newSortableId } from "../ids.js";
import { withIfRevision } from "../if-revision.js";
import { carriesMarker } from "../instance-marker.js";
import { cloneJson, jsonObjectField } from "../json.js";
import { type Message, type MessageInput, messageConflict, normalizeMessage } from "../message.js";
import { describeGiven, objectArgument } from "../option-value.js";
import { checkPointTarget } from "../point-target.js";
import { checkMessageId } from "../read-options.js";
import type { BeginMessageOptions, FollowEvent, FollowOptions, StreamingReply } from "../spec/streaming.js";
import { followReply } from "../streaming/follow-reply.js";
import { lapsedStreams, streamsOf, withStreams } from "../streaming/stream-entries.js";
import { ThreadStreams } from "../streaming/thread-streams.js";
import type {
  Alternative,
  AppendOptions,
  Checkpoint,
  EditOptions,
  ForkOptions,
  HistoryEvent,
  LogPoint,
  PointTarget,
  ReadOptions,
  RollbackOptions,
  SwitchOptions,
  Thread,
  ThreadCapabilities,
  ThreadSnapshot,
  ThreadUpdate,
  UpdateOptions,
  ViewOptions,
} from "../thread.js";
import type { ThreadState } from "../thread-type.js";
import { AppendPlan } from "./append-plan.js";
import {
  type AppliedOperation,
  type CommitResult,
  deleteRecord,
  type LogChange,
  type LogDriver,
  type LogRecord,
  newHeadSegment,
  OPERATIONS_KEPT,
} from "./log-driver.js";
import { eventPoints } from "./log-state.js";
import { type ChainRange, SegmentChains } from "./segment-chain.js";
import { ThreadBranches } from "./thread-branches.js";

/** What a local thread needs from the store it lives in. */
export interface LogThreadHost {
  readonly driver: LogDriver;
  readonly chains: SegmentChains;
  /** Binds a record read from the driver (used for forks). */
  bindRecord(record: LogRecord): Thread;
  /** The thread's JSON: its whole log for memory threads, a reference for threads that live in a store. */
  serialize(record: LogRecord): ThreadState;
}

export const LOCAL_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "native",
  checkpoints: true,
  rollback: true,
  timeTravel: true,
  views: true,
  revisions: true,
});

/** How often a change is retried when another writer moved the head segment (a concurrent rollback). */
const HEAD_MOVED_RETRIES = 50;

/** The target before the first message (`START` in thread.ts; repeated here to keep that file types only). */
const START_TARGET = "start";

/** What `LogThread.isInstance` looks for; `Symbol.for`, so every installed copy of thread-core agrees. */
const logThreadMarker = Symbol.for("skein.thread-core.LogThread");

/**
 * A thread whose log skein keeps, wherever (memory, files, Redis, PostgreSQL): its messages are a log of
 * segments in a store. Every operation reads the small record and the segments it needs, never the whole
 * log, so its cost does not grow with the thread's length. Tell one apart with `LogThread.isInstance`.
 */
export class LogThread implements Thread {
  readonly specificationVersion = "v1";
  readonly [logThreadMarker] = true;
  readonly capabilities = LOCAL_CAPABILITIES;
  #record: LogRecord;
  #branchOperations: ThreadBranches | undefined;
  #streamOperations: ThreadStreams | undefined;

  constructor(
    readonly host: LogThreadHost,
    record: LogRecord,
  ) {
    this.#record = record;
  }

  /**
   * Whether `value` is a log thread (typed local threads included): `instanceof` that also holds across
   * duplicate installs of thread-core.
   * @example if (LogThread.isInstance(thread)) console.log(thread.length);
   */
  static isInstance(value: unknown): value is LogThread {
    return carriesMarker(value, logThreadMarker);
  }

  get id(): string {
    return this.#record.id;
  }
  get type(): string {
    return this.#record.type;
  }
  get revision(): number {
    return this.#record.revision;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#record.metadata;
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#record.context;
  }
  /** Who the thread belongs to, as last read; undefined when it has no owner. */
  get owner(): string | undefined {
    return catalogueOf(this.#record.context).owner;
  }
  /** The thread's title, as last read; undefined when it has none. */
  get title(): string | undefined {
    return catalogueOf(this.#record.context).title;
  }
  /** How many messages the thread held when last read. */
  get length(): number {
    return this.#record.length;
  }

  async append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    options = withIfRevision("thread.append", options, "append(message, { ifRevision: 3 })");
    const items = normalizeInputs(input);
    if (options.operationId !== undefined) {
      return this.#once(options, (record, ifRevision) =>
        this.#appendOn(record, items, ifRevision, options.operationId),
      );
    }
    if (items.length === 0) return [];
    return this.#withHead((record) => this.#appendOn(record, items, options.ifRevision), options.ifRevision);
  }

  async #appendOn(
    record: LogRecord,
    items: Message[],
    ifRevision: number | undefined,
    operationId?: string,
  ): Promise<Message[]> {
    const plan = new AppendPlan(items, this.host.driver.source);
    if (plan.conflict) await this.#refuse(plan.conflict, ifRevision);
    // Messages already in an ancestor segment are immutable there: settle them here, the rest atomically.
    const rootHead = this.host.chains.cached(record.head)?.base === null;
    if (!rootHead) {
      const ancestors = await this.#ancestorMatches(record, plan.pending());
      try {
        plan.settle(ancestors);
      } catch (error) {
        await this.#refuse(error as Error, ifRevision);
      }
    }
    // Only a change under an operation id records where the log ends after it: a plain append needs no offset.
    const headOffset = operationId === undefined ? 0 : await this.#headOffset(record);
    for (;;) {
      const append = plan.pending();
      if (append.length === 0 && ifRevision === undefined) return plan.stored([]);
      const end = { segment: record.head, offset: headOffset + append.length };
      const result = await this.#commit({
        expectHead: record.head,
        ifRevision,
        append,
        ...this.#operationChange(record, operationId, end, items),
      });
      if (!result.held) return plan.stored(result.messages);
      // The head holds some ids already (a retry): nothing was written; compare them, send the rest.
      plan.settle(result.held);
    }
  }

  /** One message by id, or undefined: one driver lookup per segment of the thread's chain. */
  async message(id: string): Promise<Message | undefined> {
    checkMessageId("thread.message", "id", id);
    return this.host.chains.message(await this.#currentChain(), id);
  }

  /**
   * The messages, in order. Replies still streaming (`beginMessage`) come after the log's last message, with
   * `status: "streaming"` and the deltas flushed so far, in pages that reach the end of the log.
   */
  async messages(options?: ReadOptions): Promise<Message[]> {
    const ranges = await this.#currentChain();
    const page = await this.host.chains.messages(ranges, this.id, options);
    const record = this.#record;
    if (!options || options.before === undefined) {
      const room = options?.limit === undefined ? Number.POSITIVE_INFINITY : options.limit - page.length;
      if (room > 0 && streamsOf(record.context).length > 0) {
        const streaming = (await this.#streams.streamingMessages(record)).slice(0, room);
        const all = [...page, ...streaming];
        return options?.last === undefined ? all : all.slice(Math.max(0, all.length - options.last));
      }
    }
    return page;
  }

  /** Reads the whole thread in pages of `pageSize`, oldest first, without holding it all at once. */
  async *iterate(pageSize = 1000): AsyncGenerator<Message[]> {
    // A page of 0 (or NaN) would never move on: an endless run of empty pages.
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new InvalidOptionError(
        "thread.iterate",
        "pageSize",
        "a whole number of 1 or more",
        describeGiven(pageSize),
      );
    }
    const ranges = await this.#currentChain();
    const length = SegmentChains.length(ranges);
    for (let from = 0; from < length; from += pageSize) {
      yield this.host.chains.read(ranges, from, Math.min(length, from + pageSize));
    }
  }

  async view(options?: ViewOptions): Promise<Message[]> {
    const view = await this.host.chains.view(await this.#currentChain(), options);
    if (options?.streaming !== true) return view;
    return [...view, ...(await this.#streams.streamingMessages(this.#record))];
  }

  /**
   * Starts a message that streams into the thread: readers see it in `messages()` as `status: "streaming"`
   * until `reply.end()` writes it into the log (or `reply.fail(error)`, as `status: "interrupted"`). Deltas
   * are written in batches (`flushMs`, `maxBatchBytes`). A second one while one streams is a
   * `StreamInProgressError` unless `{ concurrent: true }`. A writer that dies stops renewing its lease;
   * once it lapses, the next read or write of the thread ends the message `interrupted`, every flushed delta kept.
   * @example const reply = await thread.beginMessage({ role: "assistant" }); await reply.write("Hel"); await reply.end();
   */
  beginMessage(options: BeginMessageOptions): Promise<StreamingReply> {
    return this.#streams.begin(options);
  }

  /**
   * The deltas of a streaming message from offset `from`, live as they are flushed (from any process), then
   * the whole message once it ended; a message that had ended gives only the whole message.
   * `MessageNotFoundError` when the thread has no such message. Stop with `signal` or by leaving the loop.
   * @example for await (const event of thread.follow(reply.id)) if (event.type === "delta") show(event.delta);
   */
  follow(messageId: string, options?: FollowOptions): AsyncGenerator<FollowEvent> {
    return followReply(
      {
        streams: this.#streams,
        refresh: async () => {
          await this.refresh();
          return this.#record;
        },
        messageInLog: async (id) => this.host.chains.message(await this.#currentChain(), id),
      },
      messageId,
      options,
    );
  }

  async fork(options?: ForkOptions): Promise<Thread> {
    options = withIfRevision("thread.fork", options, 'fork({ at: "cp-…" })');
    if (options.at !== undefined) checkPointTarget("thread.fork", "at", options.at);
    const ranges = await this.#currentChain();
    if (options.ifRevision !== undefined && options.ifRevision !== this.#record.revision) {
      throw new ConcurrencyError(this.id, options.ifRevision, this.#record.revision, {
        source: this.host.driver.source,
      });
    }
    const point = await this.#resolvePoint(ranges, options.at ?? null);
    const id = options.id ?? newSortableId();
    assertThreadId(id);
    const metadata = options.metadata === undefined ? {} : jsonObjectField(options.metadata, "metadata");
    // The parent's owner and title unless the fork is given its own; never the parent's expiresAt: a fork
    // is a thread of its own that outlives its parent's expiry (its shared prefix stays while it does).
    const { expiresAt: _parentExpiry, ...inherited } = catalogueOf(this.#record.context);
    const catalogue = changedCatalogue(inherited, options);
    if (options.ifRevision !== undefined) {
      // Checked again in a commit that changes nothing, atomically: the chain forked above was read at this
      // revision and the thread is still there, so the fork is this thread as of `ifRevision`, and a refusal
      // creates nothing. The fork is a new thread; nothing is written to this one.
      await this.#commit({ expectHead: this.#record.head, ifRevision: options.ifRevision });
    }
    const now = new Date().toISOString();
    const head = newHeadSegment(this.host.driver, id, point, point.position);
    const record: LogRecord = {
      kind: "log",
      id,
      type: this.type,
      createdAt: now,
      updatedAt: now,
      revision: 0,
      metadata: { ...cloneJson(this.#record.metadata), ...metadata },
      // A reply streaming into the parent stays the parent's: the fork holds the log up to its point only.
      context: withStreams(withCatalogue(cloneJson(this.#record.context), catalogue), []),
      head: head.id,
      length: point.position,
      events: [{ kind: "fork", parentId: this.id, from: point, at: now, revision: 0 }],
    };
    await this.host.driver.createLog(record, head);
    return this.host.bindRecord(record);
  }

  async checkpoint(label?: string, options?: UpdateOptions): Promise<Checkpoint> {
    assertCheckpointLabel(label);
    options = withIfRevision("thread.checkpoint", options, 'checkpoint("label", { ifRevision: 3 })');
    const result = await this.#withHead((record) => {
      const now = new Date().toISOString();
      const checkpoint: Checkpoint = {
        id: newRandomId("cp"),
        ...(label === undefined ? {} : { label }),
        threadId: this.id,
        point: { segment: record.head, offset: 0, position: record.length }, // filled in by the driver
        createdAt: now,
      };
      return this.#commit({
        expectHead: record.head,
        ifRevision: options.ifRevision,
        event: { kind: "checkpoint", checkpoint, at: now, revision: 0 },
      });
    }, options.ifRevision);
    const event = result.record.events[result.record.events.length - 1] as Extract<
      HistoryEvent,
      { kind: "checkpoint" }
    >;
    return cloneJson(event.checkpoint);
  }

  /**
   * Makes `target` the end of the thread and appends `options.append` after it, in one atomic change; the
   * abandoned part stays in `history()`. Resolves to the appended messages as stored.
   */
  async rollback(target: PointTarget, options?: RollbackOptions): Promise<Message[]> {
    checkPointTarget("thread.rollback", "target", target);
    options = withIfRevision("thread.rollback", options, "rollback(checkpoint, { ifRevision: 3 })");
    const items = options.append === undefined ? [] : normalizeInputs(options.append);
    if (options.operationId !== undefined) {
      return this.#once(options, (record, ifRevision) =>
        this.#rollbackOn(record, target, items, ifRevision, options.operationId),
      );
    }
    return this.#withHead(
      (record) => this.#rollbackOn(record, target, items, options.ifRevision),
      options.ifRevision,
    );
  }

  async #rollbackOn(
    record: LogRecord,
    target: PointTarget,
    items: Message[],
    ifRevision: number | undefined,
    operationId?: string,
  ): Promise<Message[]> {
    const point = await this.#resolveFresh(record, target);
    const plan = new AppendPlan(items, this.host.driver.source);
    if (plan.conflict) await this.#refuse(plan.conflict, ifRevision);
    if (items.length > 0) {
      // The new head continues the target's prefix: ids held there are settled as an append settles them.
      const prefix = await this.host.chains.chain(point.segment, point.offset);
      const held = await this.#matchesIn(prefix, plan.pending());
      try {
        plan.settle(held);
      } catch (error) {
        await this.#refuse(error as Error, ifRevision);
      }
      const done = await this.#endsWith(record, prefix, point.position, plan.pending());
      if (done) {
        // A retry: no messages to write, but a stale `ifRevision` is still refused (by a commit that changes
        // nothing), and an operation id is recorded.
        if (ifRevision !== undefined) {
          const end = { segment: record.head, offset: await this.#headOffset(record) };
          await this.#commit({
            expectHead: record.head,
            ifRevision,
            ...this.#operationChange(record, operationId, end, items),
          });
        }
        return plan.stored(done);
      }
    }
    const now = new Date().toISOString();
    const newHead = newHeadSegment(this.host.driver, this.id, point, point.position);
    const targetName =
      typeof target === "string" ? target : "id" in target ? target.id : `${point.segment}:${point.offset}`;
    const append = plan.pending();
    const result = await this.#commit({
      expectHead: record.head,
      ifRevision,
      newHead,
      ...(append.length > 0 ? { append } : {}),
      event: { kind: "rollback", from: point, to: point, target: targetName, at: now, revision: 0 },
      ...this.#operationChange(record, operationId, { segment: newHead.id, offset: append.length }, items),
    });
    return plan.stored(result.messages);
  }

  /**
   * Continues the thread from before `messageId` with `replacement` in its place, in one atomic change; the
   * old version and what followed it stay an alternative (`alternatives`, `switchTo`, `history()`). O(1) in
   * the thread's length: a new head segment on the kept prefix. `messageId` may also be a version of a message
   * on the current branch (an alternative), so two concurrent edits of one message both land as versions.
   * @example const edited = await thread.edit(question.id, { role: "user", text: "What about Lyon?" });
   */
  async edit(messageId: string, replacement: MessageInput, options?: EditOptions): Promise<Message> {
    checkMessageId("thread.edit", "messageId", messageId);
    options = withIfRevision(
      "thread.edit",
      options,
      'edit(id, { role: "user", text: "…" }, { ifRevision: 3 })',
    );
    const message = singleInput("thread.edit", "replacement", replacement);
    const follow = options.append === undefined ? [] : normalizeInputs(options.append);
    const [stored] = await this.#once(options, (record, ifRevision) =>
      this.#branches.change(
        record,
        { reason: "edit", messageId, replacement: message, follow },
        ifRevision,
        options.operationId,
      ),
    );
    return stored as Message;
  }

  /**
   * Drops the assistant message `messageId` (and what followed) from the current branch, keeping it as an
   * alternative; `reply`, or a later append, becomes the new answer. Resolves to the reply as stored.
   */
  async regenerate(
    messageId: string,
    reply?: MessageInput,
    options?: EditOptions,
  ): Promise<Message | undefined> {
    checkMessageId("thread.regenerate", "messageId", messageId);
    options = withIfRevision("thread.regenerate", options, "regenerate(id, reply, { ifRevision: 3 })");
    const message = reply === undefined ? undefined : singleInput("thread.regenerate", "reply", reply);
    if (message === undefined && options.append !== undefined) {
      throw new InvalidOptionError(
        "thread.regenerate",
        "append",
        "messages that follow a reply: give the reply too",
        "append without a reply",
      );
    }
    const follow = options.append === undefined ? [] : normalizeInputs(options.append);
    const [stored] = await this.#once(options, (record, ifRevision) =>
      this.#branches.change(
        record,
        { reason: "regenerate", messageId, ...(message ? { replacement: message, follow } : {}) },
        ifRevision,
        options.operationId,
      ),
    );
    return stored;
  }

  /**
   * The versions of the message at `messageId`'s position, in the order they were made (the original, each
   * edit or regeneration), each with the branch behind it. One read per version, whatever the thread's length.
   */
  async alternatives(messageId: string): Promise<Alternative[]> {
    checkMessageId("thread.alternatives", "messageId", messageId);
    await this.refresh();
    return this.#branches.alternatives(this.#record, messageId);
  }

  /**
   * Makes the branch behind version `alternativeId` current again; the branch left becomes an alternative in
   * its turn (nothing is lost). Resolves to that version. O(1) in the thread's length.
   */
  async switchTo(alternativeId: string, options?: SwitchOptions): Promise<Message> {
    checkMessageId("thread.switchTo", "alternativeId", alternativeId);
    options = withIfRevision("thread.switchTo", options, "switchTo(id, { ifRevision: 3 })");
    const { index } = options;
    if (index !== undefined && !(Number.isSafeInteger(index) && index >= 0)) {
      throw new InvalidOptionError(
        "thread.switchTo",
        "index",
        "a whole number of 0 or more",
        describeGiven(index),
      );
    }
    const [stored] = await this.#once(options, (record, ifRevision) =>
      this.#branches.switchTo(record, alternativeId, index, ifRevision, options.operationId),
    );
    return stored as Message;
  }

  get #streams(): ThreadStreams {
    this.#streamOperations ??= new ThreadStreams({
      threadId: this.id,
      driver: this.host.driver,
      chains: this.host.chains,
      record: () => this.#record,
      reread: async () => {
        await this.#reread();
        return this.#record;
      },
      commit: (change) => this.#commit(change),
      chainOf: async (record) => this.host.chains.chain(record.head, await this.#headOffset(record)),
    });
    return this.#streamOperations;
  }

  get #branches(): ThreadBranches {
    this.#branchOperations ??= new ThreadBranches({
      threadId: this.id,
      host: this.host,
      chainOf: async (record) => this.host.chains.chain(record.head, await this.#headOffset(record)),
      commit: (change) => this.#commit(change),
      operationChange: (record, operationId, end, messages) =>
        this.#operationChange(record, operationId, end, messages),
    });
    return this.#branchOperations;
  }

  async at(target: PointTarget): Promise<ThreadSnapshot> {
    checkPointTarget("thread.at", "target", target);
    const point = await this.#resolvePoint(await this.#currentChain(), target);
    const ranges = await this.host.chains.chain(point.segment, point.offset);
    const chains = this.host.chains;
    const threadId = this.id;
    return {
      threadId,
      point,
      messages: (options = {}) => chains.messages(ranges, threadId, options),
      view: (options = {}) => chains.view(ranges, options),
    };
  }

  async history(): Promise<HistoryEvent[]> {
    await this.refresh();
    return cloneJson(this.#record.events);
  }

  async update(patch: ThreadUpdate, options?: UpdateOptions): Promise<void> {
    options = withIfRevision("thread.update", options, "update(patch, { ifRevision: 3 })");
    objectArgument("thread.update", "patch", patch, "an object with metadata and/or context");
    if ((options as AppendOptions).operationId !== undefined) {
      // Only appends and rollbacks are kept by operation id; an update is refused rather than run unguarded.
      throw new UnsupportedOperationError(this.type, "update with operationId", "use ifRevision", {
        source: this.host.driver.source,
      });
    }
    const metadata = patch.metadata === undefined ? undefined : jsonObjectField(patch.metadata, "metadata");
    const context = patch.context === undefined ? undefined : jsonObjectField(patch.context, "context");
    await this.#withHead(
      (record) =>
        this.#commit({
          expectHead: record.head,
          ifRevision: options.ifRevision,
          ...(metadata ? { metadata } : {}),
          ...(context ? { context } : {}),
        }),
      options.ifRevision,
    );
  }

  /** Reads the record again; a streaming reply whose writer's lease lapsed is ended `interrupted` on the way. */
  async refresh(): Promise<void> {
    await this.#reread();
    await this.#settleLapsed();
  }

  async #reread(): Promise<void> {
    const record = await this.host.driver.read(this.id, this.#record);
    if (record?.kind === "log") this.#record = record;
    else throw new ThreadNotFoundError(this.id, { source: this.host.driver.source });
  }

  /** Ends, `interrupted`, the replies of the record as read whose writer's lease lapsed (none: no work). */
  async #settleLapsed(): Promise<void> {
    if (lapsedStreams(this.#record.context).length > 0) await this.#streams.settleLapsed();
  }

  toJSON(): ThreadState {
    return this.host.serialize(this.#record);
  }

  async delete(options?: UpdateOptions): Promise<void> {
    const checked = withIfRevision("thread.delete", options, "delete({ ifRevision: 3 })");
    await deleteRecord(this.host.driver, this.id, this.type, checked);
  }

  /** The record as last read; for stores and tools built on local threads. */
  get record(): Readonly<LogRecord> {
    return this.#record;
  }

  async #currentChain(): Promise<ChainRange[]> {
    await this.refresh();
    return this.host.chains.chain(this.#record.head, await this.#headOffset(this.#record));
  }

  async #headOffset(record: LogRecord): Promise<number> {
    return record.length - (await this.host.chains.info(record.head)).start;
  }

  async #commit(change: LogChange): Promise<CommitResult> {
    const result = await this.host.driver.commit(this.id, { ...change, known: this.#record });
    this.#record = result.record;
    // A write is also when a reply whose writer died is found and ended; the write itself stands whatever
    // happens to that (the next read tries again).
    await this.#settleLapsed().catch(() => undefined);
    return result;
  }

  /**
   * Runs a change against the current head, re-reading and retrying when a concurrent rollback moved it.
   * A handle that read the fenced revision itself never retries (see `#movedUnderFence`); one whose read is
   * older than the fence re-reads, and the store's revision check decides.
   */
  async #withHead<T>(change: (record: LogRecord) => Promise<T>, ifRevision?: number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await change(this.#record);
      } catch (error) {
        const moved = HeadMovedError.isInstance(error);
        if (!moved) throw error;
        // The handle read the fenced revision itself: the head moved either with a later revision (refused)
        // or under another thread made with the same id since.
        if (ifRevision !== undefined && this.#record.revision === ifRevision) {
          throw await this.#movedUnderFence(ifRevision, error);
        }
        if (attempt >= HEAD_MOVED_RETRIES) throw error;
        await this.refresh();
      }
    }
  }

  /**
   * Why a change under `ifRevision`, from a handle that read that revision, found the head moved: the thread
   * moved past it (a `ConcurrencyError`, as when the store checks it), or it is at that revision on another
   * head, so it was replaced (deleted and made again, its revisions restarted: `ThreadReplacedError`). Never
   * retried: a fenced writer must not write into a thread other than the one it read.
   */
  async #movedUnderFence(ifRevision: number, cause: unknown): Promise<SkeinError> {
    // Read aside: the handle keeps what it read, so a retry with the same fence is refused again.
    const current = await this.host.driver.read(this.id, this.#record);
    if (current?.kind !== "log") return new ThreadNotFoundError(this.id, { source: this.host.driver.source });
    const actual = current.revision;
    return actual === ifRevision
      ? new ThreadReplacedError(this.id, ifRevision, { cause })
      : new ConcurrencyError(this.id, ifRevision, actual, { cause });
  }

  /** The stored messages, among the head's ancestors, under ids of `items`. */
  async #ancestorMatches(record: LogRecord, items: Message[]): Promise<Message[]> {
    const head = await this.host.chains.info(record.head);
    if (!head.base || items.length === 0) return [];
    return this.#matchesIn(await this.host.chains.chain(head.base.segment, head.base.offset), items);
  }

  /** The stored messages of a chain under ids of `items`. */
  async #matchesIn(ranges: ChainRange[], items: Message[]): Promise<Message[]> {
    const found = await Promise.all(items.map((message) => this.host.chains.message(ranges, message.id)));
    return found.filter((message): message is Message => message !== undefined);
  }

  /**
   * The thread's last messages when it already ends, right after the prefix `prefix` of `position`
   * messages, with messages equal to `items` (a rollback with these messages applied before); else undefined.
   */
  async #endsWith(
    record: LogRecord,
    prefix: ChainRange[],
    position: number,
    items: Message[],
  ): Promise<Message[] | undefined> {
    const current = await this.host.chains.chain(record.head, await this.#headOffset(record));
    if (SegmentChains.length(current) !== position + items.length) return undefined;
    // The same prefix: its last message is the same stored message (same segment and offset) in both chains.
    if (position > 0 && !sameSlot(current, prefix, position - 1)) return undefined;
    const tail = await this.host.chains.read(current, position, position + items.length);
    const equal = tail.every((stored, index) => {
      const item = items[index] as Message;
      return stored.id === item.id && messageConflict(stored, item) === undefined;
    });
    return equal ? tail : undefined;
  }

  /**
   * Runs a change under an operation id (or a branch change, always so): a fresh read first; an id the thread applied already answers with
   * that application's result and writes nothing. Otherwise the change is pinned to the revision read (the
   * caller's `ifRevision`, when given), so no other change, nor another try of this one, lands in between;
   * when another writer did move the thread, it reads again and retries.
   */
  async #once(
    options: AppendOptions,
    change: (record: LogRecord, ifRevision: number) => Promise<Message[]>,
  ): Promise<Message[]> {
    const operationId = options.operationId;
    const invalid = typeof operationId !== "string" || operationId.length === 0 || operationId.length > 256;
    // Without an id (a branch change, always pinned to the revision it was planned on) nothing is looked up.
    if (operationId !== undefined && invalid) {
      throw new InvalidOperationIdError(operationId, { source: this.host.driver.source });
    }
    for (let attempt = 0; ; attempt++) {
      await this.refresh();
      const applied =
        operationId === undefined
          ? undefined
          : this.#record.operations?.find((operation) => operation.id === operationId);
      if (applied) return this.#replay(applied);
      try {
        return await change(this.#record, options.ifRevision ?? this.#record.revision);
      } catch (error) {
        const raced =
          HeadMovedError.isInstance(error) ||
          (options.ifRevision === undefined && ConcurrencyError.isInstance(error));
        if (!raced || attempt >= HEAD_MOVED_RETRIES) throw error;
      }
    }
  }

  /** The `operations` part of a change made under `operationId`: the record's kept ones and this one. */
  #operationChange(
    record: LogRecord,
    operationId: string | undefined,
    end: AppliedOperation["end"],
    items: Message[],
  ): Pick<LogChange, "operations"> {
    if (operationId === undefined) return {};
    const operation: AppliedOperation = {
      id: operationId,
      revision: record.revision + 1,
      end,
      messages: items.map((message) => message.id),
    };
    return { operations: [...(record.operations ?? []), operation].slice(-OPERATIONS_KEPT) };
  }

  /** An applied operation's result, read back from the log as it ended right after it. */
  async #replay(operation: AppliedOperation): Promise<Message[]> {
    if (operation.messages.length === 0) return [];
    const ranges = await this.host.chains.chain(operation.end.segment, operation.end.offset);
    const found = await Promise.all(operation.messages.map((id) => this.host.chains.message(ranges, id)));
    return found.map((message, index) => {
      if (message) return message;
      throw new SkeinError(
        `Message ${operation.messages[index]} of operation ${operation.id} is missing: the store is damaged.`,
        { source: this.host.driver.source },
      );
    });
  }

  /**
   * Throws `error` (a conflict found before the commit) once the thread and its revision check out, so
   * that a missing thread or a stale `ifRevision` is reported first, as a commit would.
   */
  async #refuse(error: Error, ifRevision: number | undefined): Promise<never> {
    const record = await this.host.driver.read(this.id, this.#record);
    const source = { source: this.host.driver.source };
    if (record?.kind !== "log") throw new ThreadNotFoundError(this.id, source);
    if (ifRevision !== undefined && ifRevision !== record.revision) {
      throw new ConcurrencyError(this.id, ifRevision, record.revision, source);
    }
    throw error;
  }

  /**
   * Resolves a target against the record this handle holds, and once more against a fresh read when it is
   * not there: another writer may have added the message or checkpoint since this handle last read.
   */
  async #resolveFresh(record: LogRecord, target: PointTarget): Promise<LogPoint> {
    try {
      return await this.#resolvePoint(
        await this.host.chains.chain(record.head, await this.#headOffset(record)),
        target,
      );
    } catch (error) {
      if (!PointNotFoundError.isInstance(error)) throw error;
      const fresh = await this.host.driver.read(this.id, record);
      if (fresh?.kind !== "log" || fresh.revision === record.revision) throw error;
      this.#record = fresh;
      // The head may have moved too: the commit's head check then retries the whole rollback.
      return this.#resolvePoint(
        await this.host.chains.chain(fresh.head, await this.#headOffset(fresh)),
        target,
      );
    }
  }

  /**
   * A checkpoint of this thread, a checkpoint id, a message id (the point just after it), a point of its
   * history, or "start".
   */
  async #resolvePoint(ranges: ChainRange[], target: PointTarget | null): Promise<LogPoint> {
    if (target === null) return this.host.chains.pointAt(ranges, SegmentChains.length(ranges));
    if (target === START_TARGET) return this.host.chains.pointAt(ranges, 0);
    const source = { source: this.host.driver.source };
    if (typeof target !== "string" && !("id" in target)) {
      // Only points this thread has recorded: a point is never a way into another thread's segments.
      // The current end counts too: `alternatives()` names it as the current version's branch.
      const end = this.host.chains.pointAt(ranges, SegmentChains.length(ranges));
      const known = [end, ...eventPoints(this.#record.events)].find(
        (point) => point.segment === target.segment && point.offset === target.offset,
      );
      if (!known) throw new PointNotFoundError(this.id, `${target.segment}:${target.offset}`, source);
      return known;
    }
    const checkpointId = typeof target === "string" ? target : target.id;
    for (const event of this.#record.events) {
      if (event.kind === "checkpoint" && event.checkpoint.id === checkpointId) return event.checkpoint.point;
    }
    if (typeof target !== "string") throw new PointNotFoundError(this.id, checkpointId, source);
    const found = await this.host.chains.locate(ranges, target);
    if (!found) throw new PointNotFoundError(this.id, target, source);
    return this.host.chains.pointAt(ranges, found.position + 1);
  }
}

/** One message input: a branch change writes one version, never a list. */
function singleInput(method: string, option: string, input: MessageInput): Message {
  if (Array.isArray(input)) {
    throw new InvalidOptionError(method, option, "one message, as append takes it", "a list of messages");
  }
  return normalizeMessage(input, [option]);
}

function normalizeInputs(input: MessageInput | MessageInput[]): Message[] {
  const inputs = Array.isArray(input) ? input : [input];
  return inputs.map((item, index) => normalizeMessage(item, Array.isArray(input) ? [index] : []));
}

/** Whether position `at` is the same stored message (segment and offset) in both chains. */
function sameSlot(a: ChainRange[], b: ChainRange[], at: number): boolean {
  const slot = (ranges: ChainRange[]) => {
    const range = ranges.find((candidate) => at >= candidate.start && at < candidate.start + candidate.count);
    return range && `${range.segment}\u0000${at - range.start}`;
  };
  const left = slot(a);
  return left !== undefined && left === slot(b);
}

/**
 * The former name of `LogThread`, kept for one release.
 * @deprecated use `LogThread`: a thread whose log skein keeps, wherever.
 */
export const LocalThread = LogThread;
/**
 * The former name of `LogThread`, kept for one release.
 * @deprecated use `LogThread`: a thread whose log skein keeps, wherever.
 */
export type LocalThread = LogThread;

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ContextProvider, MessageInput, Thread, ThreadRunner, ThreadStore } from "@skein/thread-core";
import {
  assertSpecificationVersion,
  checkContextProviders,
  initialProviderStates,
  newSortableId,
  normalizeMessage,
} from "@skein/thread-core/driver";
import { AdmissionReads } from "./admission-reads.js";
import { type Attachment, changeAttachments, type FileAttachment } from "./attachments.js";
import { type BranchOptions, branchItem } from "./branch-item.js";
import { ConcurrencyGate } from "./concurrency-gate.js";
import { ConfigDocuments, configDocumentType } from "./config-document.js";
import {
  InvalidThreadConfigError,
  ServiceClosedError,
  ThreadKilledError,
  ThreadPausedError,
} from "./errors.js";
import { EventStream, type ServiceEvent } from "./event-stream.js";
import { leaseDocumentType } from "./lease-document.js";
import {
  type ListServiceThreadsOptions,
  listServiceThreads,
  type ServiceThreadSummary,
} from "./list-threads.js";
import { LiveReplies } from "./live-replies.js";
import { messageItem, type ServiceContext } from "./message-item.js";
import { changeServiceRecord, updateOptimistically } from "./optimistic-update.js";
import { OutputValidator } from "./output-validator.js";
import { type ServiceEventsOptions, serviceEvents } from "./resumed-events.js";
import type { SendResult } from "./run-message.js";
import { assertRunnerSupports } from "./runner-support.js";
import {
  assertAcceptsMessages,
  type FailureSummary,
  newServiceRecord,
  readServiceRecord,
  SERVICE_RECORD_KEY,
  type ServiceRecord,
} from "./service-record.js";
import {
  runConfigOf,
  type ThreadConfig,
  type ThreadConfigInput,
  validateThreadConfig,
} from "./thread-config.js";
import { ThreadLeases } from "./thread-lease.js";
import { type QueueItem, ThreadQueues } from "./thread-queues.js";
import { statusOf, type ThreadStatus } from "./thread-status.js";

/** Options of `createThreadService`: the store, the runner, how many threads run at once and context providers. */
export interface ThreadServiceOptions {
  /** Where threads, their records and their leases live. */
  store: ThreadStore;
  /** Drives the model for every message. */
  runner: ThreadRunner;
  /** How many messages this instance processes at once, across threads. @default 8 */
  concurrency?: number;
  /** Stateless providers of extra context; each keeps its per-thread state in the thread's `context[name]`. */
  contextProviders?: readonly ContextProvider[];
  /** How long a thread's lease lasts without renewal; it is renewed every third of it. @default 15000 */
  leaseMs?: number;
  /** The first wait before asking again for a lease another instance holds; doubles up to 500 ms. @default 20 */
  pollMs?: number;
  /** Names this instance in leases. @default `<hostname>#<pid>#<random>` */
  instanceId?: string;
}

/** Options of `service.create`: the thread's configuration, first messages and type. */
export interface CreateServiceThreadOptions {
  /** Validated, frozen and stored with the thread; nothing changes it afterwards. Aliases: see the README. */
  config?: ThreadConfigInput;
  /** Appended when the thread is created, before any message is sent. */
  initialMessages?: MessageInput[];
  /** A thread type id (`openai.conversation`, …). @default the store's own local type */
  type?: string;
  /** Options for the type's adapter, when `type` is not the store's own. */
  typeOptions?: Record<string, unknown>;
  /** @default a new sortable id */
  id?: string;
  /** The application's own metadata; the key "@skein/thread-service" is reserved. */
  metadata?: Record<string, unknown>;
  /** Who the thread belongs to (a user); `listThreads({ owner })` finds it. */
  owner?: string;
  /** The thread's title, as a list of conversations shows it. */
  title?: string;
}

/** Everything the service knows about a thread. */
export interface ThreadInfo {
  threadId: string;
  status: ThreadStatus;
  config: Readonly<ThreadConfig>;
  attachments: Attachment[];
  /** Branches made from the thread; while there are any, it is locked (status `locked`). */
  branches: string[];
  /** The thread this one was branched from (also as `branchedFrom`). */
  parentThreadId?: string;
  /** The same as `parentThreadId`, under its earlier name. */
  branchedFrom?: string;
  /** The root of the branch chain: the thread itself unless it is a branch. */
  originatingThreadId: string;
  lastFailure?: FailureSummary;
  createdAt: string;
}

/**
 * The thread runtime: per-thread queues, pause, resume, kill, branch, status, attachments and events.
 * @example const service = createThreadService({ store, runner, concurrency: 16 });
 */
export function createThreadService(options: ThreadServiceOptions): ThreadService {
  return new ThreadService(options);
}

/** The runtime: per-thread queues, configuration, pause/resume/kill, branch, status and events. */
export class ThreadService {
  readonly store: ThreadStore;
  readonly instanceId: string;
  readonly #context: ServiceContext;
  readonly #queues: ThreadQueues;
  readonly #leases: ThreadLeases;
  readonly #admissionReads: AdmissionReads;
  #closed = false;

  constructor(options: ThreadServiceOptions) {
    const leaseMs = options.leaseMs ?? 15_000;
    if (!Number.isInteger(leaseMs) || leaseMs < 30)
      throw new RangeError("leaseMs must be an integer of 30 or more");
    if (typeof options.runner?.run !== "function" || typeof options.runner.supports !== "function")
      throw new TypeError("runner must be an object with run and supports functions (a ThreadRunner)");
    assertSpecificationVersion("runner given to the thread service", options.runner.specificationVersion, {
      source: "thread-service",
    });
    this.store = options.store;
    this.store.registry.ensure(leaseDocumentType);
    this.store.registry.ensure(configDocumentType);
    this.instanceId = options.instanceId ?? `${hostname()}#${process.pid}#${randomBytes(4).toString("hex")}`;
    const leases = new ThreadLeases(this.store, this.instanceId, leaseMs);
    this.#context = {
      store: this.store,
      runner: options.runner,
      providers: checkContextProviders(options.contextProviders ?? []),
      validator: new OutputValidator(),
      configs: new ConfigDocuments(this.store),
      events: new EventStream(),
      live: new LiveReplies(),
      leaseMs,
    };
    this.#queues = new ThreadQueues({
      gate: new ConcurrencyGate(options.concurrency ?? 8),
      leases,
      pollMs: options.pollMs ?? 20,
      maxPollMs: Math.min(500, Math.floor(leaseMs / 3)),
    });
    this.#leases = leases;
    this.#admissionReads = new AdmissionReads(this.store);
  }

  /** Creates a thread with its frozen configuration; `InvalidThreadConfigError` lists what is wrong. */
  async createThread(options: CreateServiceThreadOptions = {}): Promise<{ threadId: string }> {
    this.#assertOpen();
    const config = validateThreadConfig(options.config, this.#context.validator);
    if (options.metadata && SERVICE_RECORD_KEY in options.metadata) {
      throw new InvalidThreadConfigError([
        `metadata key "${SERVICE_RECORD_KEY}" is reserved for the service`,
      ]);
    }
    const initial = (options.initialMessages ?? []).map((message, index) =>
      normalizeMessage(message, [index]),
    );
    const record = newServiceRecord(config);
    const native = options.type === undefined || options.type === this.store.nativeType;
    const thread = native
      ? await this.#createNative(options, record)
      : await this.#createOfType(options, record);
    try {
      await this.#context.configs.write(thread.id, record);
    } catch (error) {
      await thread.delete().catch(() => {});
      throw error;
    }
    if (initial.length > 0) await thread.append(initial);
    this.#emitStatus(thread.id, "idle");
    return { threadId: thread.id };
  }

  /**
   * The service's threads, most recently changed first unless `order` says otherwise: one owner's, by
   * metadata, a page at a time (`{ threads, cursor }`).
   * @example const { threads } = await service.listThreads({ owner: "u-7", limit: 20 })
   */
  listThreads(
    options: ListServiceThreadsOptions = {},
  ): Promise<{ threads: ServiceThreadSummary[]; cursor?: string }> {
    this.#assertOpen();
    return listServiceThreads(this.store, options);
  }

  /**
   * Queues a message and resolves with what the runner appended once it is processed. Messages of one
   * thread are processed one at a time, in the order `send` was called.
   */
  async send(threadId: string, message: MessageInput | string): Promise<SendResult> {
    this.#assertOpen();
    const input = normalizeMessage(typeof message === "string" ? { role: "user", text: message } : message);
    let settle!: { resolve: (result: SendResult) => void; reject: (error: unknown) => void };
    const outcome = new Promise<SendResult>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // The outcome may settle before this function returns it; the caller's await still sees it.
    outcome.catch(() => {});
    await this.#admit(threadId, async (thread) => {
      assertAcceptsMessages(threadId, readServiceRecord(await thread()));
      return messageItem(this.#context, threadId, input, settle);
    });
    return outcome;
  }

  /** `idle`, `running` (here or in another instance), `paused`, `killed` or `failed` (the last message failed). */
  async status(threadId: string): Promise<ThreadStatus> {
    return (await this.info(threadId)).status;
  }

  /** Status, frozen configuration, attachments, branches and last failure of a service thread. */
  async info(threadId: string): Promise<ThreadInfo> {
    const record = await this.#context.configs.verified(
      threadId,
      readServiceRecord(await this.store.get(threadId)),
    );
    const running =
      this.#queues.find(threadId)?.running !== undefined || (await this.#leases.heldElsewhere(threadId));
    return {
      threadId,
      status: statusOf(record, running),
      config: record.config,
      attachments: record.attachments,
      branches: record.branches,
      ...(record.branchedFrom === undefined
        ? {}
        : { parentThreadId: record.branchedFrom, branchedFrom: record.branchedFrom }),
      originatingThreadId: record.originatingThreadId ?? record.branchedFrom ?? threadId,
      ...(record.lastFailure === undefined ? {} : { lastFailure: record.lastFailure }),
      createdAt: record.createdAt,
    };
  }

  /** New sends fail with `ThreadPausedError`; the message in flight completes; waiting ones fail likewise. */
  async pause(threadId: string): Promise<void> {
    await this.#changeLifecycle(threadId, "paused");
    this.#queues.reject(
      threadId,
      () => new ThreadPausedError(threadId),
      (item) => item.kind === "message",
    );
    this.#emitStatus(threadId, "paused");
  }

  /** Takes messages again after `pause`; a killed thread stays dead (`ThreadKilledError`). */
  async resume(threadId: string): Promise<void> {
    const record = await this.#changeLifecycle(threadId, "active");
    this.#emitStatus(threadId, statusOf(record, this.#queues.find(threadId)?.running !== undefined));
  }

  /**
   * Kills the thread for good: the run in flight is aborted through its signal, waiting and later sends
   * fail with `ThreadKilledError`. Another instance running it notices within a third of `leaseMs`.
   */
  async kill(threadId: string): Promise<void> {
    await this.#changeLifecycle(threadId, "killed");
    const queue = this.#queues.find(threadId);
    if (queue) queue.killed = new ThreadKilledError(threadId);
    queue?.running?.controller.abort(new ThreadKilledError(threadId));
    this.#queues.reject(threadId, () => new ThreadKilledError(threadId));
    this.#emitStatus(threadId, "killed");
  }

  /**
   * A new thread with the same configuration and a fork of the history (after the messages queued before
   * it); the parent is locked from then on. Branching a killed thread fails with `ThreadKilledError`.
   */
  async branch(threadId: string, options: BranchOptions = {}): Promise<{ threadId: string }> {
    this.#assertOpen();
    let settle!: { resolve: (result: { threadId: string }) => void; reject: (error: unknown) => void };
    const outcome = new Promise<{ threadId: string }>((resolve, reject) => {
      settle = { resolve, reject };
    });
    outcome.catch(() => {});
    await this.#admit(threadId, async (thread) => {
      const record = readServiceRecord(await thread());
      if (record.lifecycle === "killed") throw new ThreadKilledError(threadId);
      return branchItem(this.#context, threadId, options, settle);
    });
    return outcome;
  }

  /** Adds a file to the thread (or replaces the one with its id); resolves with the thread's attachments. */
  async attach(threadId: string, file: FileAttachment): Promise<Attachment[]> {
    return changeAttachments(await this.store.get(threadId), { attach: file });
  }

  /** The thread's attachments, oldest first. */
  async attachments(threadId: string): Promise<Attachment[]> {
    return readServiceRecord(await this.store.get(threadId)).attachments;
  }

  /** Removes a file from the thread; resolves with the attachments left. */
  async detach(threadId: string, fileId: string): Promise<Attachment[]> {
    return changeAttachments(await this.store.get(threadId), { detach: fileId });
  }

  /**
   * `completed`, `failed`, `status` and streamed replies' events of this instance from now on, of one thread
   * or all; with `from`, first a reply's deltas from an offset (a client resuming).
   * @example for await (const event of service.events(threadId, { signal })) console.log(event.type);
   */
  events(threadId?: string, options: ServiceEventsOptions = {}): AsyncIterableIterator<ServiceEvent> {
    return serviceEvents(this.#context, threadId, options);
  }

  /** Resolves when this instance has nothing queued or running, for one thread or all. */
  whenIdle(threadId?: string): Promise<void> {
    return this.#queues.whenIdle(threadId);
  }

  /**
   * Stops taking work: waiting messages fail with `ServiceClosedError`, runs in flight complete (or, with
   * `abort`, are aborted), leases are released and event iterators end. The store stays open.
   */
  async close(options: { abort?: boolean } = {}): Promise<void> {
    if (this.#closed) return this.whenIdle();
    this.#closed = true;
    this.#queues.rejectAll(() => new ServiceClosedError());
    if (options.abort) this.#queues.abortRunning(() => new ServiceClosedError());
    await this.whenIdle();
    this.#context.events.close();
  }

  /** A thread of the store's own type, with its record and the providers' initial states in one write. */
  async #createNative(options: CreateServiceThreadOptions, record: ServiceRecord): Promise<Thread> {
    const id = options.id ?? newSortableId();
    const context = await this.#initialContext(id, record.config);
    const thread = await this.store.create({
      id,
      ...ownerAndTitle(options),
      metadata: { ...options.metadata, [SERVICE_RECORD_KEY]: record },
      ...(Object.keys(context).length === 0 ? {} : { context }),
    });
    await assertRunnerSupports(this.#context.runner, thread, { created: true });
    return thread;
  }

  /** A thread created through its type's adapter; the runner is asked before the record is written. */
  async #createOfType(options: CreateServiceThreadOptions, record: ServiceRecord): Promise<Thread> {
    const thread = await this.store.create(options.type as string, {
      ...options.typeOptions,
      ...ownerAndTitle(options),
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    });
    await assertRunnerSupports(this.#context.runner, thread, { created: true });
    const context = await this.#initialContext(thread.id, record.config);
    await updateOptimistically(thread, (current) => ({
      metadata: { ...current.metadata, [SERVICE_RECORD_KEY]: record },
      ...(Object.keys(context).length === 0 ? {} : { context: { ...current.context, ...context } }),
    }));
    return thread;
  }

  /** The states the context providers want on a new thread. */
  #initialContext(threadId: string, config: Readonly<ThreadConfig>): Promise<Record<string, unknown>> {
    return initialProviderStates(this.#context.providers, { threadId, config: runConfigOf(config) });
  }

  async #changeLifecycle(threadId: string, lifecycle: ServiceRecord["lifecycle"]): Promise<ServiceRecord> {
    const thread = await this.store.get(threadId);
    return changeServiceRecord(thread, (record) => {
      if (record.lifecycle === lifecycle) return undefined;
      if (record.lifecycle === "killed") throw new ThreadKilledError(threadId);
      return { ...record, lifecycle };
    });
  }

  /**
   * Admits an item into the thread's queue after the items called before it. `prepare` reads the thread
   * through `thread()`: a read shared with the other admissions of the thread, sent after this call.
   */
  async #admit(
    threadId: string,
    prepare: (thread: () => Promise<Thread>) => Promise<QueueItem>,
  ): Promise<void> {
    const calledAt = this.#admissionReads.now();
    const reads = this.#admissionReads;
    reads.begin(threadId);
    try {
      await this.#queues.admit(threadId, () => {
        this.#assertOpen();
        return prepare(() => reads.read(threadId, calledAt));
      });
    } finally {
      reads.end(threadId);
    }
  }

  #emitStatus(threadId: string, status: ThreadStatus): void {
    this.#context.events.emit({ type: "status", threadId, status, at: new Date().toISOString() });
  }

  #assertOpen(): void {
    if (this.#closed) throw new ServiceClosedError();
  }
}

/** The owner and title given to `createThread`, as `store.create` takes them. */
function ownerAndTitle(options: CreateServiceThreadOptions): { owner?: string; title?: string } {
  return {
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.title === undefined ? {} : { title: options.title }),
  };
}

import {
  type AppendOptions,
  type Checkpoint,
  type ForkOptions,
  type HistoryEvent,
  type Message,
  type MessageInput,
  PointNotFoundError,
  type PointTarget,
  type ReadOptions,
  START,
  type Thread,
  type ThreadCapabilities,
  ThreadNotFoundError,
  type ThreadSnapshot,
  type ThreadState,
  UnsupportedOperationError,
  type UpdateOptions,
  type ViewOptions,
} from "@skein/thread-core";
import {
  assertThreadId,
  type BindEnvironment,
  selectView,
  type ThreadUpdate,
} from "@skein/thread-core/driver";
import type { FoundryAdapter } from "./adapter-lookup.js";
import { SOURCE } from "./errors.js";
import {
  type MessagePage,
  type PagedMessages,
  type PageRequest,
  pagesOf,
  readAll,
  readWindow,
} from "./message-window.js";
import type { CallLimits } from "./service-call.js";

/** Remote threads live in Foundry: copies for forks, no checkpoints or rollback, no revisions. */
export const REMOTE_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "copy",
  checkpoints: false,
  rollback: false,
  timeTravel: false,
  views: true,
  revisions: false,
  // delete() deletes the service's conversation or thread too.
  remoteDelete: true,
});

/** A new remote thread being filled by a fork: written page by page, thrown away if the copy fails. */
export interface CopyTarget<State extends ThreadState> {
  state: State;
  write(messages: Message[]): Promise<void>;
  discard(): Promise<void>;
}

/**
 * What `foundry.conversation` and `foundry.thread` share: the state document (ids, metadata, context),
 * reads through `PagedMessages`, fork as a paged copy, and honest refusals of what Foundry cannot do.
 */
export abstract class RemoteThread<State extends ThreadState> implements Thread<State>, PagedMessages {
  readonly specificationVersion = "v1";
  readonly capabilities = REMOTE_CAPABILITIES;
  /** Remote threads keep no revision: Foundry has no compare-and-set on a conversation or thread. */
  readonly revision = undefined;
  abstract readonly type: string;
  /** Foundry keeps this history, so only foundryRunner serves it (thread-core's `RemoteHistoryThread`). */
  readonly historyService = "foundry";
  protected state: State;

  constructor(
    state: State,
    protected readonly adapter: FoundryAdapter,
    protected readonly environment: BindEnvironment,
  ) {
    this.state = structuredClone(state);
  }

  get id(): string {
    return this.state.id;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.state.metadata ?? {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.state.context ?? {};
  }

  abstract append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]>;
  abstract readPage(request: PageRequest): Promise<MessagePage>;
  /** The message with this id (one request); `PointNotFoundError` when the thread has none. */
  protected abstract retrieve(messageId: string): Promise<Message>;
  /** A new, empty remote thread of the same kind for a fork to fill. */
  protected abstract createCopy(): Promise<CopyTarget<State>>;
  /** The same kind of thread for another state (a fork's). */
  protected abstract rebind(state: State): RemoteThread<State>;
  protected abstract deleteRemote(): Promise<void>;
  /** Throws `FoundryNotFoundError` if the remote conversation or thread is gone. */
  protected abstract verifyRemote(): Promise<void>;

  messages(options?: ReadOptions): Promise<Message[]> {
    return readWindow(this, options);
  }

  /** One message by id (one request), or undefined when the thread has none. */
  async message(id: string): Promise<Message | undefined> {
    try {
      return await this.retrieve(id);
    } catch (error) {
      if (PointNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  async assertPoint(messageId: string): Promise<void> {
    await this.retrieve(messageId);
  }

  /** Reads the whole remote thread (in pages): Foundry cannot count or index a thread's messages. */
  async view(options?: ViewOptions): Promise<Message[]> {
    const all = await readAll(this);
    const systemAt = all.flatMap((message, position) => (message.role === "system" ? [position] : []));
    return selectView(
      { length: all.length, read: async (from, to) => all.slice(from, to), systemAt },
      options,
    );
  }

  /**
   * Copies the messages up to `at` (a message id, or `"start"` for none; default all) into a new remote
   * thread, page by page.
   */
  async fork(options: ForkOptions = {}): Promise<Thread> {
    this.rejectRevision(options);
    const at = this.#forkPoint(options.at);
    if (options.id !== undefined) assertThreadId(options.id);
    if (at !== undefined && at !== START) await this.assertPoint(at);
    const copy = await this.createCopy();
    try {
      for await (const page of at === START ? [] : pagesOf(this)) {
        const end = at === undefined ? -1 : page.findIndex((message) => message.id === at);
        await copy.write(end === -1 ? page : page.slice(0, end + 1));
        if (end !== -1) break;
      }
    } catch (error) {
      // Nothing half done: the partial copy goes; the error that stopped it is what the caller sees.
      await copy.discard().catch(() => undefined);
      throw error;
    }
    const fork = this.rebind({
      ...copy.state,
      id: options.id ?? copy.state.id,
      metadata: { ...structuredClone(this.metadata), ...structuredClone(options.metadata ?? {}) },
      context: structuredClone(this.context),
    } as State);
    await fork.persist();
    return fork;
  }

  checkpoint(_label?: string): Promise<Checkpoint> {
    return this.#unsupported(
      "checkpoints",
      "Foundry keeps no restorable points; fork({ at: messageId }) copies the thread up to a message.",
    );
  }

  rollback(_target: PointTarget, _options?: AppendOptions): Promise<unknown> {
    return this.#unsupported(
      "rollback",
      "Foundry cannot truncate a thread; fork({ at: messageId }) copies it up to a message instead.",
    );
  }

  at(_target: PointTarget): Promise<ThreadSnapshot> {
    return this.#unsupported(
      "time travel",
      "Foundry keeps no past versions; messages({ last }) and fork({ at }) read and copy prefixes.",
    );
  }

  history(): Promise<HistoryEvent[]> {
    return this.#unsupported("time travel", "Foundry keeps no checkpoints or rollbacks to list.");
  }

  /** Replaces metadata and/or context in the state, and saves it to the store that opened the thread. */
  async update(patch: ThreadUpdate, options: AppendOptions = {}): Promise<void> {
    this.rejectRevision(options);
    const next = structuredClone(this.state);
    if (patch.metadata) next.metadata = structuredClone(patch.metadata);
    if (patch.context) next.context = structuredClone(patch.context);
    const before = this.state;
    this.state = next;
    try {
      await this.persist();
    } catch (error) {
      this.state = before;
      throw error;
    }
  }

  /** Checks that the remote thread still exists and re-reads metadata and context from the store. */
  async refresh(): Promise<void> {
    await this.verifyRemote();
    const store = this.environment.store;
    if (!store) return;
    const stored = await store.get(this.id).catch((error: unknown) => {
      if (ThreadNotFoundError.isInstance(error)) return undefined;
      throw error;
    });
    if (stored?.type === this.type) this.state = structuredClone(stored.toJSON() as State);
  }

  toJSON(): State {
    return structuredClone(this.state);
  }

  /** Deletes the remote conversation or thread (already gone is fine) and the state saved in the store. */
  async delete(options: UpdateOptions = {}): Promise<void> {
    this.rejectRevision(options);
    await this.deleteRemote();
    await this.environment.store?.delete(this.id);
  }

  /** Saves the state in the store that opened or created the thread, if any. */
  async persist(): Promise<void> {
    await this.environment.store?.save(this);
  }

  protected limits(signal?: AbortSignal): CallLimits {
    return { requestTimeoutMs: this.adapter.settings.requestTimeoutMs, signal };
  }

  /** Refuses the change options Foundry cannot honour (`ifRevision`, `operationId`), before any request. */
  protected rejectRevision(options: AppendOptions | undefined): void {
    if (options?.operationId !== undefined) {
      throw new UnsupportedOperationError(
        this.type,
        "operationId",
        "Foundry keeps no record of applied operations, so a retry could not be recognised; nothing was written.",
        { source: SOURCE },
      );
    }
    if (options?.ifRevision !== undefined) {
      throw new UnsupportedOperationError(
        this.type,
        "revisions",
        "Foundry has no compare-and-set on a thread, so { ifRevision } cannot be honoured; nothing was written.",
        { source: SOURCE },
      );
    }
  }

  #forkPoint(target: PointTarget | undefined): string | undefined {
    if (target === undefined || typeof target === "string") return target;
    throw new UnsupportedOperationError(
      this.type,
      "forking at a checkpoint",
      "remote threads have no checkpoints; give the id of the message to fork after.",
      { source: SOURCE },
    );
  }

  async #unsupported<T>(capability: string, detail: string): Promise<T> {
    throw new UnsupportedOperationError(this.type, capability, detail, { source: SOURCE });
  }
}

import { Task as WireTask } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import {
  type AppendOptions,
  ConcurrencyError,
  type Message,
  type MessageInput,
  type ReadOptions,
  type Thread,
  type ThreadCapabilities,
  ThreadExistsError,
  type ThreadSnapshot,
  type ThreadStore,
  type ViewOptions,
} from "@skein/thread-core";
import { selectView, type ThreadUpdate } from "@skein/thread-core/driver";
import type { TaskJson } from "./a2a-json.js";
import {
  type A2aThreadState,
  type ConversationEntry,
  conversationOf,
  recordTurn,
} from "./a2a-thread-state.js";
import type { AgentClients } from "./agent-clients.js";
import { agentError } from "./agent-error.js";
import { type ConversationLink, openTurnStream, sendTurn } from "./agent-turn.js";
import { readConversation } from "./conversation-reader.js";
import { A2aAdapterMissingError, SOURCE, unsupported } from "./errors.js";
import { taskMessages } from "./message-mapping.js";
import { ReplyAssembler } from "./reply-assembler.js";
import { readStoredState } from "./stored-state.js";
import type { A2aStreamEvent } from "./stream-event.js";
import type { A2aTaskState } from "./task-state.js";
import { turnReply } from "./turn-outcome.js";
import { resentMessage, userTurnInput } from "./user-turn-input.js";

export const A2A_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "none",
  checkpoints: false,
  rollback: false,
  timeTravel: false,
  views: true,
  revisions: true,
  // A2A has no delete: the agent keeps its tasks.
  remoteDelete: false,
});

/** How often a turn's outcome is merged into a state another writer saved first. */
const MERGE_ATTEMPTS = 8;

export interface A2aThreadHost {
  /** Where the state is saved as it changes; without one it lives only in this object (and its JSON). */
  store?: ThreadStore;
  clients?: AgentClients;
}

/**
 * A conversation with a remote A2A agent: one context, its tasks read back from the agent. Appending a
 * user message sends it (continuing the current task until it is terminal) and returns the agent's reply.
 */
export class A2aThread implements Thread<A2aThreadState> {
  readonly specificationVersion = "v1";
  readonly type = "a2a";
  /** The remote agent keeps this history, so only a2aRunner serves it (thread-core's `RemoteHistoryThread`). */
  readonly historyService = "a2a";
  readonly capabilities = A2A_CAPABILITIES;
  #state: A2aThreadState;

  constructor(
    state: A2aThreadState,
    readonly host: A2aThreadHost = {},
  ) {
    this.#state = structuredClone(state);
  }

  get id(): string {
    return this.#state.id;
  }
  get revision(): number {
    return this.#state.revision ?? 0;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#state.metadata ?? {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#state.context ?? {};
  }
  get agentUrl(): string {
    return this.#state.agentUrl;
  }
  get contextId(): string {
    return this.#state.contextId;
  }
  get taskId(): string | undefined {
    return this.#state.taskId;
  }
  get taskState(): A2aTaskState | undefined {
    return this.#state.taskState;
  }

  /**
   * Sends one user message and waits until the agent stops (done, or asking for input). Returns the
   * message as stored, then the agent's reply: its messages and artifacts of this task after ours.
   */
  async append(input: MessageInput | MessageInput[], options: AppendOptions = {}): Promise<Message[]> {
    const { message, namedId } = userTurnInput(input);
    refuseOperationId(options);
    await this.#checkRevision(options.ifRevision);
    const resent = namedId ? resentMessage(message, await this.#latest()) : undefined;
    if (resent) return [resent];
    const link = this.#link();
    const { target, result } = await this.#withClient((client) =>
      sendTurn(client, this.agentUrl, message, link),
    );
    const turn = turnReply(result, message, target, link);
    await this.#commit((state) => recordTurn(state, turn.outcome));
    return [turn.stored, ...turn.reply];
  }

  /**
   * Sends one user message with SendStreamingMessage and yields the agent's events as they come. Nothing
   * is sent until the first event is read; the thread records the turn when the stream ends or is left.
   * @example for await (const event of thread.stream({ role: "user", text: "hi" })) show(event.messages);
   */
  async *stream(
    input: MessageInput,
    options: AppendOptions & { signal?: AbortSignal } = {},
  ): AsyncGenerator<A2aStreamEvent, void> {
    const { message, namedId } = userTurnInput(input);
    refuseOperationId(options);
    await this.#checkRevision(options.ifRevision);
    if (namedId && resentMessage(message, await this.#latest())) return;
    const link = this.#link();
    const opened = await this.#withClient((client) =>
      openTurnStream(client, this.agentUrl, message, link, options.signal),
    );
    const assembler = new ReplyAssembler(this.agentUrl, message, opened.target, link);
    try {
      for await (const response of opened.responses) yield assembler.accept(response);
    } finally {
      if (assembler.started) await this.#commit((state) => recordTurn(state, assembler.outcome));
    }
  }

  /** The context's conversation in order, read from the agent task by task, only as far as needed. */
  messages(options: ReadOptions = {}): Promise<Message[]> {
    return readConversation(conversationOf(this.#state), (entry) => this.#load(entry), options, this.id);
  }

  /** A2A has no system messages, and a view with `maxMessages` reads only that many from the end. */
  async view(options: ViewOptions = {}): Promise<Message[]> {
    const recent = await this.messages(
      options.maxMessages === undefined ? {} : { last: options.maxMessages },
    );
    return selectView(
      { length: recent.length, read: async (from, to) => recent.slice(from, to), systemAt: [] },
      options,
    );
  }

  /** The agent's answer to the latest user message: what follows it in the last task (or plain answer). */
  async lastReply(): Promise<Message[]> {
    const entries = conversationOf(this.#state);
    const last = entries[entries.length - 1];
    if (!last) return [];
    const messages = await this.#load(last);
    const index = messages.findLastIndex((message) => message.role === "user");
    return messages.slice(index + 1);
  }

  fork(): Promise<Thread> {
    return Promise.reject(
      unsupported(
        "a2a",
        "fork",
        "A2A has no fork, and replaying the messages would run the agent (and its side effects) again; copy them into a local thread instead.",
      ),
    );
  }
  checkpoint(): Promise<never> {
    return Promise.reject(unsupported("a2a", "checkpoints", "an A2A agent keeps no points to return to."));
  }
  rollback(): Promise<never> {
    return Promise.reject(unsupported("a2a", "rollback", "an A2A agent cannot take back what it did."));
  }
  at(): Promise<ThreadSnapshot> {
    return Promise.reject(unsupported("a2a", "time travel", "an A2A agent keeps only the present."));
  }
  history(): Promise<never> {
    return Promise.reject(unsupported("a2a", "time travel", "an A2A agent keeps only the present."));
  }

  async update(patch: ThreadUpdate, options: AppendOptions = {}): Promise<void> {
    await this.#checkRevision(options.ifRevision);
    await this.#commit(
      (state) => ({
        ...state,
        ...(patch.metadata ? { metadata: structuredClone(patch.metadata) } : {}),
        ...(patch.context ? { context: structuredClone(patch.context) } : {}),
      }),
      options.ifRevision !== undefined,
    );
  }

  /** Reads the state saved in the store, if the thread has one there. */
  async refresh(): Promise<void> {
    const stored = await this.#stored();
    if (stored) this.#state = stored;
  }

  toJSON(): A2aThreadState {
    return structuredClone(this.#state);
  }

  /**
   * Forgets the thread's state in its store. The agent keeps its tasks: A2A has no delete. `{ ifRevision }`
   * is refused: the store's revision of the saved state need not be the thread's, so no one step can check it.
   */
  async delete(options: { ifRevision?: number } = {}): Promise<void> {
    if (options.ifRevision !== undefined) {
      throw unsupported(
        "a2a",
        "delete with ifRevision",
        "no store step can check the thread's revision as it deletes; nothing was deleted.",
      );
    }
    await this.host.store?.delete(this.id);
  }

  /** Saves a thread that is new to its store; `ThreadExistsError` if the id is taken. */
  async saveNew(): Promise<void> {
    const store = this.host.store;
    if (!store) return;
    this.#state = { ...this.#state, revision: 1 };
    try {
      await store.save(this, { ifRevision: 0 });
    } catch (error) {
      if (ConcurrencyError.isInstance(error)) throw new ThreadExistsError(this.id, { source: SOURCE });
      throw error;
    }
  }

  /** The newest conversation entry's messages, where a re-sent message would be. */
  async #latest(): Promise<Message[]> {
    const entries = conversationOf(this.#state);
    const last = entries[entries.length - 1];
    return last ? this.#load(last) : [];
  }

  async #checkRevision(ifRevision: number | undefined): Promise<void> {
    if (ifRevision === undefined) return;
    await this.refresh();
    if (this.revision !== ifRevision) {
      throw new ConcurrencyError(this.id, ifRevision, this.revision, { source: SOURCE });
    }
  }

  #link(): ConversationLink {
    const { contextId, taskId, taskState } = this.#state;
    return { contextId, ...(taskId ? { taskId } : {}), ...(taskState ? { taskState } : {}) };
  }

  async #withClient<Result>(call: (client: Client) => Promise<Result>): Promise<Result> {
    if (!this.host.clients) throw new A2aAdapterMissingError(this.id);
    return this.host.clients.use(this.agentUrl, call);
  }

  async #load(entry: ConversationEntry): Promise<Message[]> {
    if (!("taskId" in entry)) return entry.messages;
    const task = await this.#withClient((client) =>
      client.getTask({ tenant: "", id: entry.taskId }).catch((error: unknown) => {
        throw agentError(error, { agentUrl: this.agentUrl, operation: "GetTask", taskId: entry.taskId });
      }),
    );
    return taskMessages(WireTask.toJSON(task) as TaskJson);
  }

  /**
   * Saves `change(state)` as the next revision. When another writer saved first, the change is applied
   * again to what they saved (a turn already happened at the agent and must not be lost), unless the
   * caller asked for a given revision, which then fails with `ConcurrencyError`.
   */
  async #commit(change: (state: A2aThreadState) => A2aThreadState, strict = false): Promise<void> {
    let base = this.#state;
    for (let attempt = 1; ; attempt++) {
      const before = this.#state;
      this.#state = { ...change(base), revision: (base.revision ?? 0) + 1 };
      if (!this.host.store) return;
      try {
        await this.host.store.save(this, { ifRevision: base.revision ?? 0 });
        return;
      } catch (error) {
        this.#state = before;
        if (strict || attempt >= MERGE_ATTEMPTS || !ConcurrencyError.isInstance(error)) throw error;
      }
      // Not in the store yet (a state brought from elsewhere): it is saved there as new.
      base = (await this.#stored()) ?? { ...base, revision: 0 };
    }
  }

  #stored(): Promise<A2aThreadState | undefined> {
    return this.host.store ? readStoredState(this.host.store, this.id) : Promise.resolve(undefined);
  }
}

/** An agent keeps no record of operations, so a retry could not be recognised: refused before sending. */
function refuseOperationId(options: AppendOptions): void {
  if (options.operationId !== undefined) {
    throw unsupported(
      "a2a",
      "operationId",
      "an A2A agent records no operations, so a retry would run the turn again; nothing was sent. Re-send the message with the same id instead.",
    );
  }
}

import {
  type AppendOptions,
  type Checkpoint,
  type ForkOptions,
  type HistoryEvent,
  type Message,
  type MessageInput,
  type PointTarget,
  type ReadOptions,
  type Thread,
  type ThreadSnapshot,
  UnsupportedOperationError,
  type UpdateOptions,
  type ViewOptions,
} from "@skein/thread-core";
import type { BindEnvironment, ThreadUpdate } from "@skein/thread-core/driver";
import type OpenAI from "openai";
import { appendToConversation } from "./conversation-append.js";
import { forkConversation } from "./conversation-fork.js";
import { ConversationHistory } from "./conversation-history.js";
import {
  CONVERSATION_CAPABILITIES,
  CONVERSATION_TYPE,
  type OpenAIConversationState,
} from "./conversation-state.js";
import { SOURCE } from "./errors.js";
import { readMessages } from "./remote-history.js";
import { remoteView } from "./remote-view.js";
import { callService } from "./service-call.js";
import { StateDocument, saveNewState } from "./state-document.js";

/**
 * An `openai.conversation` thread: its messages are the items of one OpenAI conversation, read and written
 * through the Conversations API. Requests per call: append 1 per 20 items (+1 per message given with a
 * service-shaped id such as `msg_…`, to check for a re-send); messages and view 1 per 100 messages read
 * (+1 for a view's opening system messages); message(id) 1; fork 1 + 1 per 100 items read + 1 per 20 items copied;
 * delete 1; update, refresh, history 0.
 */
export class OpenAIConversationThread implements Thread<OpenAIConversationState> {
  readonly specificationVersion = "v1";
  readonly type = CONVERSATION_TYPE;
  /** OpenAI keeps this history, so only openaiRunner serves it (thread-core's `RemoteHistoryThread`). */
  readonly historyService = "openai";
  readonly capabilities = CONVERSATION_CAPABILITIES;
  readonly #client: OpenAI;
  readonly #environment: BindEnvironment;
  readonly #document: StateDocument;
  #state: OpenAIConversationState;

  constructor(state: OpenAIConversationState, client: OpenAI, environment: BindEnvironment) {
    this.#state = structuredClone(state);
    this.#client = client;
    this.#environment = environment;
    this.#document = new StateDocument(environment, false);
  }

  get id(): string {
    return this.#state.id;
  }
  /** Conversations have no revision: the service orders appends itself. */
  get revision(): undefined {
    return undefined;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#state.metadata ?? {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#state.context ?? {};
  }
  /** The service's conversation id (`conv_…`). */
  get conversationId(): string {
    return this.#state.conversationId;
  }

  /**
   * Stores the messages as conversation items (up to 20 per request) and returns them as stored, one
   * message per item, with the service's item ids (a message's own id is not kept: items have no room for
   * it). A message re-sent with an item id the conversation holds is not stored again: equal, it is
   * returned as it is; different, a `ConflictError`.
   */
  async append(input: MessageInput | MessageInput[], options: AppendOptions = {}): Promise<Message[]> {
    if (options.ifRevision !== undefined) throw this.#unsupported("revisions", "conversations have none.");
    if (options.operationId !== undefined) {
      throw this.#unsupported(
        "operationId",
        "the service records no operations, so a retry could not be recognised; nothing was written.",
      );
    }
    return appendToConversation(this.#client, this.#history(), input);
  }

  messages(options: ReadOptions = {}): Promise<Message[]> {
    return readMessages(this.#history(), options);
  }

  /** One item by id (one `conversations.items.retrieve`), or undefined when the conversation has none. */
  async message(id: string): Promise<Message | undefined> {
    const history = this.#history();
    const item = await history.find(id);
    return item && history.toMessage(item);
  }

  view(options: ViewOptions = {}): Promise<Message[]> {
    return remoteView(this.#history(), options);
  }

  /** A new conversation holding a copy of the items up to `at` (a message id), made in pages. */
  fork(options: ForkOptions = {}): Promise<Thread> {
    if (options.ifRevision !== undefined) {
      return Promise.reject(this.#unsupported("revisions", "conversations have none."));
    }
    return forkConversation(this.#client, this.#history(), this.#state, options, async (state) => {
      const fork = new OpenAIConversationThread(state, this.#client, this.#environment);
      await saveNewState(this.#environment, fork);
      return fork;
    });
  }

  async checkpoint(_label?: string): Promise<Checkpoint> {
    throw this.#unsupported(
      "checkpoints",
      "the service keeps no past states of a conversation; fork to keep one.",
    );
  }

  async rollback(_target: PointTarget, _options?: AppendOptions): Promise<unknown> {
    throw this.#unsupported(
      "rollback",
      "the service cannot rewind a conversation's items; fork at the message to continue from instead.",
    );
  }

  async at(_target: PointTarget): Promise<ThreadSnapshot> {
    throw this.#unsupported("time travel", "the service keeps no past states of a conversation.");
  }

  /** Always empty: a conversation takes no checkpoints and is never rolled back. */
  async history(): Promise<HistoryEvent[]> {
    return [];
  }

  async update(patch: ThreadUpdate, options: AppendOptions = {}): Promise<void> {
    if (options.ifRevision !== undefined) throw this.#unsupported("revisions", "conversations have none.");
    const previous = this.#state;
    this.#state = {
      ...structuredClone(previous),
      ...(patch.metadata ? { metadata: structuredClone(patch.metadata) } : {}),
      ...(patch.context ? { context: structuredClone(patch.context) } : {}),
    };
    try {
      await this.#document.save(this, previous);
    } catch (error) {
      this.#state = previous;
      throw error;
    }
  }

  /** Reads the state (metadata, context) the store holds now; the items are always read live. */
  async refresh(): Promise<void> {
    const stored = await this.#document.read(this.id);
    if (stored) this.#state = stored as OpenAIConversationState;
  }

  toJSON(): OpenAIConversationState {
    return structuredClone(this.#state);
  }

  /** Deletes the service's conversation (gone already is fine) and the state in the store. */
  async delete(options: UpdateOptions = {}): Promise<void> {
    if (options.ifRevision !== undefined) throw this.#unsupported("revisions", "conversations have none.");
    try {
      await callService(this.#client, { operation: "conversations.delete", threadId: this.id }, () =>
        this.#client.conversations.delete(this.conversationId),
      );
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
    await this.#document.delete(this.id);
  }

  #history(): ConversationHistory {
    return new ConversationHistory(this.#client, this.id, this.conversationId, this.#state.createdAt);
  }

  #unsupported(capability: string, detail: string): UnsupportedOperationError {
    return new UnsupportedOperationError(CONVERSATION_TYPE, capability, detail, { source: SOURCE });
  }
}

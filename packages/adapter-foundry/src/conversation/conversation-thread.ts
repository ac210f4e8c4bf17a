import {
  type AppendOptions,
  type Message,
  type MessageInput,
  PartialAppendError,
  type RunConfig,
} from "@skein/thread-core";
import { normalizeMessage } from "@skein/thread-core/driver";
import type { FoundryOpenAIClient } from "../adapter-lookup.js";
import { FoundryAgentNotFoundError, FoundryNotFoundError, SOURCE } from "../errors.js";
import type { MessagePage, PageRequest } from "../message-window.js";
import { type CopyTarget, RemoteThread } from "../remote-thread.js";
import { rejectUnhonouredConfig } from "../run-config.js";
import { type CallContext, callService } from "../service-call.js";
import {
  type AgentChoice,
  agentReference,
  assertResponseCompleted,
  type ResponseRecord,
} from "./agent-response.js";
import { type ConversationItem, itemToMessage } from "./conversation-items.js";
import { FOUNDRY_CONVERSATION, type FoundryConversationState } from "./conversation-state.js";
import { type InputItem, messageToItems } from "./message-items.js";

type Items = FoundryOpenAIClient["conversations"]["items"];
type ItemCreateParams = Parameters<Items["create"]>[1];
type ResponseCreateParams = Parameters<FoundryOpenAIClient["responses"]["create"]>[0];

/** The conversations API takes at most this many items a request. */
const ITEMS_PER_REQUEST = 20;

/** Options of a run on a `foundry.conversation` thread. */
export interface ConversationRunOptions {
  signal?: AbortSignal | undefined;
  config?: RunConfig | undefined;
  /** Another agent than the thread's, for this run. */
  agent?: Partial<AgentChoice> | undefined;
}

/** A `foundry.conversation` thread: a conversation in the Foundry Agent Service, answered by a named agent. */
export class FoundryConversationThread extends RemoteThread<FoundryConversationState> {
  readonly type = FOUNDRY_CONVERSATION;
  #createdAt: string | undefined;

  get conversationId(): string {
    return this.state.conversationId;
  }
  get agentName(): string {
    return this.state.agentName;
  }

  /** Adds the messages as conversation items; returns them as stored, with the service's item ids. */
  async append(input: MessageInput | MessageInput[], options?: AppendOptions): Promise<Message[]> {
    this.rejectRevision(options);
    const messages = (Array.isArray(input) ? input : [input]).map((one, index) =>
      normalizeMessage(one, [index]),
    );
    const items = messages.flatMap((message) => messageToItems(message, this.type));
    return this.#addItems(this.conversationId, items);
  }

  async readPage(request: PageRequest): Promise<MessagePage> {
    const query = {
      limit: request.limit,
      order: request.order,
      ...(request.after ? { after: request.after } : {}),
    };
    const page = await this.#call({ operation: "conversations.items.list" }, (client, signal) =>
      client.conversations.items.list(this.conversationId, query, { signal }),
    );
    const createdAt = await this.#conversationCreatedAt();
    const messages = (page.data as unknown as ConversationItem[]).map((item) =>
      itemToMessage(item, createdAt),
    );
    return { messages, hasMore: page.has_more };
  }

  protected async retrieve(messageId: string): Promise<Message> {
    const item = await this.#call(
      { operation: "conversations.items.retrieve", point: messageId },
      (client, signal) =>
        client.conversations.items.retrieve(messageId, { conversation_id: this.conversationId }, { signal }),
    );
    return itemToMessage(item as unknown as ConversationItem, await this.#conversationCreatedAt());
  }

  /**
   * Asks the agent for a response in this conversation (everything appended is already there) and returns
   * its output items as messages; the service adds them to the conversation itself.
   */
  async runAgent(options: ConversationRunOptions = {}): Promise<Message[]> {
    // Everything but the agent's name is the agent definition's to decide.
    rejectUnhonouredConfig(this.type, options.config, ["model"]);
    const agent = agentReference(this.state, options.agent ?? {}, options.config);
    const body = { conversation: this.conversationId, agent_reference: agent };
    let response: ResponseRecord;
    try {
      response = (await this.#call(
        { operation: "responses.create" },
        (client, signal) => client.responses.create(body as unknown as ResponseCreateParams, { signal }),
        options.signal,
      )) as unknown as ResponseRecord;
    } catch (error) {
      // A 404 names the conversation or the agent; only a second look says which.
      if (FoundryNotFoundError.isInstance(error)) await this.verifyRemote();
      throw FoundryNotFoundError.isInstance(error)
        ? new FoundryAgentNotFoundError(agent.name, { cause: error })
        : error;
    }
    assertResponseCompleted(this.id, response);
    const createdAt = await this.#conversationCreatedAt();
    return (response.output ?? []).map((item) => itemToMessage(item, createdAt));
  }

  protected async createCopy(): Promise<CopyTarget<FoundryConversationState>> {
    const conversation = await this.#call({ operation: "conversations.create" }, (client, signal) =>
      client.conversations.create({}, { signal }),
    );
    const conversationId = conversation.id;
    return {
      state: {
        ...this.state,
        id: conversationId,
        conversationId,
        createdAt: new Date(conversation.created_at * 1000).toISOString(),
      },
      write: async (messages) => {
        const items = messages.flatMap((message) => messageToItems(message, this.type));
        // A copy is all or nothing (the fork discards it), so what stopped it matters, not how far it got.
        await this.#addItems(conversationId, items).catch((error: unknown) => {
          throw PartialAppendError.isInstance(error) ? error.cause : error;
        });
      },
      discard: () => this.#deleteConversation(conversationId),
    };
  }

  protected rebind(state: FoundryConversationState): FoundryConversationThread {
    return new FoundryConversationThread(state, this.adapter, this.environment);
  }

  protected deleteRemote(): Promise<void> {
    return this.#deleteConversation(this.conversationId);
  }

  protected async verifyRemote(): Promise<void> {
    await this.#retrieveConversation();
  }

  async #addItems(conversationId: string, items: InputItem[]): Promise<Message[]> {
    const stored: Message[] = [];
    const createdAt = await this.#conversationCreatedAt();
    for (let start = 0; start < items.length; start += ITEMS_PER_REQUEST) {
      const batch = items.slice(start, start + ITEMS_PER_REQUEST);
      try {
        const list = await this.#call({ operation: "conversations.items.create" }, (client, signal) =>
          client.conversations.items.create(conversationId, { items: batch } as unknown as ItemCreateParams, {
            signal,
          }),
        );
        stored.push(
          ...(list.data as unknown as ConversationItem[]).map((item) => itemToMessage(item, createdAt)),
        );
      } catch (error) {
        if (start === 0) throw error;
        throw new PartialAppendError(this.id, stored, items.length - start, { source: SOURCE, cause: error });
      }
    }
    return stored;
  }

  async #deleteConversation(conversationId: string): Promise<void> {
    try {
      await this.#call({ operation: "conversations.delete" }, (client, signal) =>
        client.conversations.delete(conversationId, { signal }),
      );
    } catch (error) {
      if (!FoundryNotFoundError.isInstance(error)) throw error; // already gone is what delete wants
    }
  }

  /** Items carry no timestamps; messages read from this conversation take its creation time. */
  async #conversationCreatedAt(): Promise<string> {
    this.#createdAt ??= this.state.createdAt ?? (await this.#retrieveConversation());
    return this.#createdAt;
  }

  async #retrieveConversation(): Promise<string> {
    const conversation = await this.#call({ operation: "conversations.retrieve" }, (client, signal) =>
      client.conversations.retrieve(this.conversationId, { signal }),
    );
    return new Date(conversation.created_at * 1000).toISOString();
  }

  #call<T>(
    context: Omit<CallContext, "threadId">,
    call: (client: FoundryOpenAIClient, signal: AbortSignal) => PromiseLike<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const client = this.adapter.openAIClient();
    return callService({ ...context, threadId: this.id }, this.limits(signal), async (deadline) =>
      call(client, deadline),
    );
  }
}

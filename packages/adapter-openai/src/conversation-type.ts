import { defineThreadType, type MessageInput, type Thread, type ThreadState } from "@skein/thread-core";
import type { z } from "@skein/thread-core/driver";
import { assertThreadId, type BindEnvironment } from "@skein/thread-core/driver";
import type { ConversationCreateParams } from "openai/resources/conversations/conversations";
import {
  CONVERSATION_TYPE,
  type OpenAIConversationState,
  OpenAIConversationStateSchema,
} from "./conversation-state.js";
import { OpenAIConversationThread } from "./conversation-thread.js";
import { clientFromEnvironment, PACKAGE_NAME } from "./openai-client.js";
import { callService } from "./service-call.js";
import { saveNewState } from "./state-document.js";

/** What `store.create("openai.conversation", options)` accepts. */
export interface CreateConversationOptions {
  /** The thread's id. @default the conversation's id (`conv_…`) */
  id?: string;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** Adopt an existing conversation instead of creating one (checked with one request). */
  conversationId?: string;
  /** The service's own metadata on the conversation: at most 16 string values. */
  conversationMetadata?: Record<string, string>;
  /**
   * How long the service keeps the conversation once idle (openai 7's `ttl`; an openai 6 client sends it
   * too). @default the service's own
   */
  conversationTtl?: "30m" | "12h";
  /** Messages to start with, appended after the conversation is created. */
  messages?: MessageInput[];
}

/**
 * `openai.conversation`: a thread whose messages are the items of an OpenAI conversation.
 * @example const thread = await store.create("openai.conversation", { metadata: { user: "u-7" } });
 */
export const openaiConversationType = defineThreadType({
  type: CONVERSATION_TYPE,
  version: 1,
  packageName: PACKAGE_NAME,
  schema: OpenAIConversationStateSchema as unknown as z.ZodType<ThreadState, unknown>,
  bind: (state, environment) =>
    new OpenAIConversationThread(
      state as OpenAIConversationState,
      clientFromEnvironment(environment, CONVERSATION_TYPE),
      environment,
    ),
  create: (options, environment) => createConversation(options as CreateConversationOptions, environment),
});

async function createConversation(
  options: CreateConversationOptions,
  environment: BindEnvironment,
): Promise<Thread> {
  const client = clientFromEnvironment(environment, CONVERSATION_TYPE);
  if (options.id !== undefined) assertThreadId(options.id);
  const conversation = options.conversationId
    ? await callService(
        client,
        { operation: "conversations.retrieve", threadId: options.id ?? options.conversationId },
        () => client.conversations.retrieve(options.conversationId as string),
      )
    : await callService(client, { operation: "conversations.create" }, () =>
        client.conversations.create(creationBody(options)),
      );
  const state: OpenAIConversationState = {
    $type: CONVERSATION_TYPE,
    $v: 1,
    id: options.id ?? conversation.id,
    createdAt: new Date(conversation.created_at * 1000).toISOString(),
    metadata: structuredClone(options.metadata ?? {}),
    context: structuredClone(options.context ?? {}),
    conversationId: conversation.id,
  };
  const thread = new OpenAIConversationThread(state, client, environment);
  try {
    if (options.messages?.length) await thread.append(options.messages);
    await saveNewState(environment, thread);
  } catch (error) {
    // A conversation made here and not saved would be unreachable: take it back.
    if (!options.conversationId) await client.conversations.delete(conversation.id).catch(() => undefined);
    throw error;
  }
  return thread;
}

/** What `conversations.create` is sent; `ttl` is typed only in openai 7, so the body is built untyped. */
function creationBody(options: CreateConversationOptions): ConversationCreateParams {
  const body: Record<string, unknown> = {};
  if (options.conversationMetadata) body.metadata = options.conversationMetadata;
  if (options.conversationTtl !== undefined) body.ttl = options.conversationTtl;
  return body as ConversationCreateParams;
}

import { defineThreadType, type MessageInput } from "@skein/thread-core";
import { assertThreadId, type BindEnvironment } from "@skein/thread-core/driver";
import { type FoundryAdapter, findFoundryAdapter, PACKAGE_NAME } from "../adapter-lookup.js";
import { requireText } from "../create-options.js";
import { assertSameProject } from "../project-check.js";
import { callService } from "../service-call.js";
import {
  FOUNDRY_CONVERSATION,
  type FoundryConversationState,
  FoundryConversationStateSchema,
} from "./conversation-state.js";
import { FoundryConversationThread } from "./conversation-thread.js";

/** `store.create("foundry.conversation", options)`. */
export interface CreateFoundryConversationOptions {
  /** The agent that answers in the conversation. */
  agentName: string;
  /** Pins an agent version. @default the agent's latest */
  agentVersion?: string;
  /** Adopts an existing conversation (`conv_…`) instead of creating one. */
  conversationId?: string;
  /** The skein id. @default the conversation id */
  id?: string;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** Messages the conversation starts with. */
  messages?: MessageInput[];
}

/** `foundry.conversation`: a Foundry Agent Service conversation, answered by a named agent. */
export const foundryConversationType = defineThreadType<FoundryConversationState>({
  type: FOUNDRY_CONVERSATION,
  version: 1,
  packageName: PACKAGE_NAME,
  schema: FoundryConversationStateSchema,
  bind: (state, environment) => {
    const adapter = findFoundryAdapter(environment, FOUNDRY_CONVERSATION);
    assertSameProject(state, adapter);
    return new FoundryConversationThread(state, adapter, environment);
  },
  create: (options, environment) =>
    createConversation(options as Partial<CreateFoundryConversationOptions>, environment),
});

async function createConversation(
  options: Partial<CreateFoundryConversationOptions>,
  environment: BindEnvironment,
): Promise<FoundryConversationThread> {
  const agentName = requireText(FOUNDRY_CONVERSATION, options, "agentName");
  if (options.id !== undefined) assertThreadId(options.id);
  const adapter = findFoundryAdapter(environment, FOUNDRY_CONVERSATION);
  const adopted = options.conversationId !== undefined;
  const conversation = await openConversation(adapter, options.conversationId);
  const state: FoundryConversationState = {
    $type: FOUNDRY_CONVERSATION,
    $v: 1,
    id: options.id ?? conversation.id,
    createdAt: new Date(conversation.created_at * 1000).toISOString(),
    metadata: structuredClone(options.metadata ?? {}),
    context: structuredClone(options.context ?? {}),
    conversationId: conversation.id,
    agentName,
    ...(options.agentVersion === undefined ? {} : { agentVersion: options.agentVersion }),
    ...(adapter.endpoint === undefined ? {} : { projectEndpoint: adapter.endpoint }),
  };
  const thread = new FoundryConversationThread(state, adapter, environment);
  try {
    if (options.messages?.length) await thread.append(options.messages);
    await thread.persist();
  } catch (error) {
    // A conversation this call made and could not finish is removed; an adopted one is left alone.
    if (!adopted) await thread.delete().catch(() => undefined);
    throw error;
  }
  return thread;
}

async function openConversation(adapter: FoundryAdapter, conversationId: string | undefined) {
  const client = adapter.openAIClient();
  const limits = { requestTimeoutMs: adapter.settings.requestTimeoutMs };
  if (conversationId === undefined) {
    return callService({ operation: "conversations.create" }, limits, (signal) =>
      client.conversations.create({}, { signal }),
    );
  }
  return callService({ operation: "conversations.retrieve", threadId: conversationId }, limits, (signal) =>
    client.conversations.retrieve(conversationId, { signal }),
  );
}

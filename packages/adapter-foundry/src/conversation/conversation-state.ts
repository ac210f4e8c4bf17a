import { type ThreadState, ThreadStateSchema } from "@skein/thread-core";
import type { ThreadTypeDefinition } from "@skein/thread-core/driver";

/** The `$type` of Foundry Agent Service conversation threads. */
export const FOUNDRY_CONVERSATION = "foundry.conversation";

/** `foundry.conversation`: a Foundry Agent Service conversation and the agent that answers in it. */
export interface FoundryConversationState extends ThreadState {
  $type: typeof FOUNDRY_CONVERSATION;
  /** The service's conversation id, `conv_…`. */
  conversationId: string;
  /** The agent (by name) that `foundryRunner` asks for replies. */
  agentName: string;
  /** A pinned agent version; absent: the agent's latest. */
  agentVersion?: string;
  /** The project the conversation lives in, recorded so a state is never read through another project. */
  projectEndpoint?: string;
}

// zod is thread-core's dependency, not this package's: the schema is built from thread-core's own so one
// zod instance validates every state (and registry.jsonSchema() can describe it).
const nonEmpty = ThreadStateSchema.shape.id;

/** The zod schema of a `foundry.conversation` state. */
export const FoundryConversationStateSchema = ThreadStateSchema.extend({
  conversationId: nonEmpty,
  agentName: nonEmpty,
  agentVersion: nonEmpty.optional(),
  projectEndpoint: nonEmpty.optional(),
}) as unknown as ThreadTypeDefinition<FoundryConversationState>["schema"];

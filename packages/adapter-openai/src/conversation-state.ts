import { type ThreadCapabilities, type ThreadState, ThreadStateSchema } from "@skein/thread-core";
import { z } from "@skein/thread-core/driver";

export const CONVERSATION_TYPE = "openai.conversation";

/** `openai.conversation` state: the skein fields plus the service's conversation id. */
export const OpenAIConversationStateSchema = ThreadStateSchema.extend({
  $type: z.literal(CONVERSATION_TYPE),
  /** The service's conversation (`conv_…`); the thread's messages are its items. */
  conversationId: z.string().min(1),
  /** Where a fork copied its items from. */
  forkedFrom: z
    .looseObject({ threadId: z.string(), conversationId: z.string(), at: z.string().optional() })
    .optional(),
});

/** The JSON of an `openai.conversation` thread: the Conversations API id it stands for. */
export interface OpenAIConversationState extends ThreadState {
  $type: typeof CONVERSATION_TYPE;
  createdAt: string;
  conversationId: string;
  forkedFrom?: { threadId: string; conversationId: string; at?: string };
}

/**
 * A conversation's history lives on the service, which can copy it but not rewind it: forks copy items,
 * there are no checkpoints, rollbacks or past views, and appends have no revision to compare.
 */
export const CONVERSATION_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "copy",
  checkpoints: false,
  rollback: false,
  timeTravel: false,
  views: true,
  revisions: false,
  // delete() deletes the service's conversation too.
  remoteDelete: true,
});

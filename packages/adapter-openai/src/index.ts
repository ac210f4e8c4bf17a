/** Raised when a multi-request append stops part way; defined in thread-core for every remote type. */
export { PartialAppendError } from "@skein/thread-core";
export { type OpenAIAdapter, type OpenAIAdapterOptions, openaiAdapter } from "./adapter.js";
export {
  CONVERSATION_CAPABILITIES,
  type OpenAIConversationState,
  OpenAIConversationStateSchema,
} from "./conversation-state.js";
export { OpenAIConversationThread } from "./conversation-thread.js";
export { type CreateConversationOptions, openaiConversationType } from "./conversation-type.js";
export {
  OpenAIConfigurationError,
  OpenAIConflictError,
  OpenAICredentialError,
  OpenAINotFoundError,
  OpenAIRateLimitError,
  OpenAIServiceError,
  OpenAIUnavailableError,
  ResponseFailedError,
  RunAbortedError,
} from "./errors.js";
export { ITEM_CONTENT, itemToMessage, PART_CONTENT } from "./item-to-message.js";
export { messagesToItems, messageToItems } from "./message-to-items.js";
export { type ClientOptions, PACKAGE_NAME } from "./openai-client.js";
export {
  type ChainPoint,
  type OpenAIResponsesState,
  OpenAIResponsesStateSchema,
  RESPONSES_CAPABILITIES,
} from "./responses-state.js";
export { OpenAIResponsesThread } from "./responses-thread.js";
export { type CreateResponsesOptions, openaiResponsesType } from "./responses-type.js";
export type { ChainAdvance } from "./run-advance.js";
export { type OpenAIRunnerOptions, openaiRunner } from "./runner.js";

export { type OpenAIAdapter, type OpenAIAdapterOptions, openaiAdapter } from "./adapter.js";
export {
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
export type { ClientOptions } from "./openai-client.js";
export {
  type ChainPoint,
  type OpenAIResponsesState,
  OpenAIResponsesStateSchema,
} from "./responses-state.js";
export { OpenAIResponsesThread } from "./responses-thread.js";
export { type CreateResponsesOptions, openaiResponsesType } from "./responses-type.js";
export type { ChainAdvance } from "./run-advance.js";
export { type OpenAIRunnerOptions, openaiRunner } from "./runner.js";

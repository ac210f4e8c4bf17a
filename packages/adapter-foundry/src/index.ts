export type {
  FoundryAdapter,
  FoundryHttpClient,
  FoundryOpenAIClient,
  FoundrySettings,
} from "./adapter-lookup.js";
export { type AgentThreadRunOptions, FoundryAgentThread } from "./classic/agent-thread.js";
export {
  FOUNDRY_THREAD,
  type FoundryAgentThreadState,
  FoundryAgentThreadStateSchema,
} from "./classic/agent-thread-state.js";
export { type CreateFoundryAgentThreadOptions, foundryThreadType } from "./classic/agent-thread-type.js";
export type { AgentReference } from "./conversation/agent-response.js";
export {
  FOUNDRY_CONVERSATION,
  type FoundryConversationState,
  FoundryConversationStateSchema,
} from "./conversation/conversation-state.js";
export {
  type ConversationRunOptions,
  FoundryConversationThread,
} from "./conversation/conversation-thread.js";
export {
  type CreateFoundryConversationOptions,
  foundryConversationType,
} from "./conversation/conversation-thread-type.js";
export {
  FoundryAgentNotFoundError,
  FoundryConfigurationError,
  FoundryConflictError,
  FoundryCredentialError,
  FoundryNotFoundError,
  FoundryRunError,
  FoundryServiceError,
  FoundryUnavailableError,
  type RunEnding,
} from "./errors.js";
export { type FoundryAdapterOptions, type FoundryTransport, foundryAdapter } from "./foundry-adapter.js";
export { type FoundryRunnerOptions, foundryRunner } from "./foundry-runner.js";

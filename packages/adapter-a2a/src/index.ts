export { type A2aAdapterOptions, a2aAdapter } from "./a2a-adapter.js";
export type { ArtifactJson, MessageJson, PartJson, TaskJson, TaskStatusJson } from "./a2a-json.js";
export { type A2aRunnerLink, type A2aRunnerOptions, a2aRunner } from "./a2a-runner.js";
export { A2aTaskThread, type A2aTaskThreadState, A2aTaskThreadStateSchema } from "./a2a-task-thread.js";
export { a2aTaskThreadType } from "./a2a-task-thread-type.js";
export { A2aThread } from "./a2a-thread.js";
export {
  type A2aThreadState,
  A2aThreadStateSchema,
  type ConversationEntry,
  ConversationEntrySchema,
} from "./a2a-thread-state.js";
export { a2aThreadType, type CreateA2aThreadOptions } from "./a2a-thread-type.js";
export type { A2aAdapter } from "./agent-clients.js";
export type { ConversationLink } from "./agent-turn.js";
export {
  A2aAdapterMissingError,
  A2aAgentError,
  A2aAgentUnavailableError,
  A2aCredentialError,
  A2aInvalidAgentUrlError,
  A2aTaskFailedError,
  A2aTaskNotFoundError,
  A2aTaskStoreError,
} from "./errors.js";
export { a2aFetch } from "./failed-answer.js";
export { type SkeinTaskStoreOptions, skeinTaskStore } from "./skein-task-store.js";
export type { A2aStreamEvent } from "./stream-event.js";
export type { A2aTaskState } from "./task-state.js";

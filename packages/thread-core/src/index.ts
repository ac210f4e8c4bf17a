/**
 * What an application imports. Store authors import `@skein/thread-core/driver` (the `LogDriver` contract and the
 * local-store building blocks), tests `@skein/thread-core/testing`. Each name has one entry point; the surface is
 * recorded in api/*.api.md and checked by `npm test`.
 */
export { MessageNotFoundError, MessageOffBranchError, NotAnAnswerError } from "./branch-errors.js";
export { MAX_CHECKPOINT_LABEL } from "./checkpoint-label.js";
export {
  type ContextProvider,
  type ContextProviderInvoked,
  type ContextProviderInvoking,
  type ContextProviderStart,
  contextOf,
  defineContextProvider,
  type ProvidedContext,
  type ProvidedRun,
  type ProviderState,
  type ProvidersContext,
  withContextProviders,
} from "./context-provider.js";
export { createRegistry, defaultRegistry } from "./create-registry.js";
export {
  AdapterNotInstalledError,
  ConcurrencyError,
  ConflictError,
  DuplicateThreadTypeError,
  InvalidListOptionsError,
  InvalidMessageError,
  InvalidOperationIdError,
  InvalidOptionError,
  InvalidStoreUrlError,
  InvalidThreadIdError,
  InvalidThreadStateError,
  InvalidTypeDefinitionError,
  MessageTooLargeError,
  PartialAppendError,
  PointNotFoundError,
  SkeinError,
  type SkeinErrorOptions,
  StoreClosedError,
  StoreUnavailableError,
  ThreadExistsError,
  ThreadNotFoundError,
  ThreadReplacedError,
  ThreadTypeClashError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
  UnsupportedRunConfigError,
  UnsupportedVersionError,
} from "./errors.js";
export { assertThreadId, MAX_THREAD_ID_LENGTH, newRandomId, newSortableId } from "./ids.js";
export {
  assertJsonValue,
  canonicalJson,
  cloneJson,
  findJsonProblem,
  type JsonCheckOptions,
  type JsonObject,
  type JsonProblem,
  type JsonValue,
  MAX_JSON_DEPTH,
} from "./json.js";
export { LocalThread } from "./local/local-thread.js";
export { type LogState, LogStateSchema } from "./local/log-state.js";
export { TypedLocalThread } from "./local/typed-local-thread.js";
export { estimateTokens, selectView, type ViewSource } from "./local/view.js";
export { type PairKey, type PairParticipants, pairKey } from "./manager/pair-key.js";
export {
  createThreadManager,
  type PairState,
  type ThreadManager,
  type ThreadManagerCallbacks,
  type ThreadManagerOptions,
  type ThreadManagerSaveOptions,
} from "./manager/thread-manager.js";
export { ThreadManagerError } from "./manager/thread-manager-error.js";
export { createMemoryStore, MemoryThreadStateSchema, memoryThreadType } from "./memory/memory-thread-type.js";
export * from "./message.js";
export { OpaqueThreadState } from "./opaque-state.js";
export { parseThreadState, serializeThread } from "./parse-thread-state.js";
export { redactedError, redactSecrets, rememberSecret } from "./redact-secrets.js";
export { type ParsedState, type ParseOptions, Registry } from "./registry.js";
export type {
  RemoteHistoryThread,
  RunConfig,
  RunnerReach,
  RunOptions,
  ThreadRunner,
  ThreadWrapper,
} from "./runner.js";
export {
  assertInputWithinBudget,
  assertViewWithinBudget,
  isServiceThread,
  refuseTransient,
  requireServedTarget,
  runTarget,
  runTargetType,
  SERVICE_THREAD_TYPES,
  servedTarget,
  unhonouredSettings,
} from "./runner.js";
export {
  isRetryableStatus,
  ServiceCredentialError,
  ServiceError,
  type ServiceFailure,
  type ServiceFailureDetails,
} from "./service-error.js";
export {
  ServiceConflictError,
  type ServiceErrorOptions,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceUnavailableError,
} from "./service-error-family.js";
export {
  defineStateType,
  type StateOf,
  type StateType,
  type StateTypeDefinition,
  stateOf,
  type TypedState,
} from "./state-type.js";
export { type OpenStoreOptions, openStore } from "./store/open-store.js";
export { PlainStateThread } from "./store/plain-state-thread.js";
export type * from "./store/store.js";
export { MAX_LIST_LIMIT } from "./store/store.js";
export type * from "./thread.js";
export { START } from "./thread.js";
export {
  type BindEnvironment,
  defineThreadType,
  type ThreadState,
  ThreadStateSchema,
  type ThreadType,
  type ThreadTypeDefinition,
} from "./thread-type.js";
export { TimestampSchema } from "./timestamp.js";
export { SPAN_ATTRIBUTES } from "./tracing/span-attributes.js";
export { tracedRunner } from "./tracing/traced-runner.js";
export type { WorkflowRollbackReport } from "./workflow/workflow-checkpoints.js";
export { WorkflowPartlyDeletedError } from "./workflow/workflow-delete-error.js";
export type { SubThreadMessage, WorkflowForkOptions } from "./workflow/workflow-fork.js";
export type { WorkflowSnapshot } from "./workflow/workflow-snapshot.js";
export * from "./workflow/workflow-state.js";
export { MAIN_THREAD, type SubThread, WorkflowThread } from "./workflow/workflow-thread.js";
export { type CreateWorkflowOptions, workflowThreadType } from "./workflow/workflow-thread-type.js";

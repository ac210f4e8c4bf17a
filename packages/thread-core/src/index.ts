/**
 * What an application imports: at most 120 names. What only adapter, store and runner authors use (runner helpers,
 * service-failure helpers, zod schema values, message and JSON machinery) is in `@skein/thread-core/driver`, the
 * suites in `@skein/thread-core/testing`. Each name has one entry point; the surface is recorded in api/*.api.md
 * and checked by `npm test`.
 */

export { MessageNotFoundError, MessageOffBranchError, NotAnAnswerError } from "./branch-errors.js";
export { MAX_OWNER_LENGTH, MAX_TITLE_LENGTH } from "./catalogue/catalogue-fields.js";
export { MAX_CHECKPOINT_LABEL } from "./checkpoint-label.js";
export {
  type ContextProvider,
  contextOf,
  defineContextProvider,
  withContextProviders,
} from "./context-provider.js";
export { createRegistry, defaultRegistry } from "./create-registry.js";
export { DelegatingThread } from "./delegating-thread.js";
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
export { MAX_THREAD_ID_LENGTH } from "./ids.js";
export type { JsonObject, JsonValue } from "./json.js";
export { LocalThread, LogThread } from "./local/log-thread.js";
export { TypedLocalThread } from "./local/typed-local-thread.js";
export { estimateTokens } from "./local/view.js";
export { type PairKey, pairKey } from "./manager/pair-key.js";
export {
  createThreadManager,
  type PairState,
  type ThreadManager,
  type ThreadManagerCallbacks,
  type ThreadManagerOptions,
} from "./manager/thread-manager.js";
export { ThreadManagerError } from "./manager/thread-manager-error.js";
export { createMemoryStore } from "./memory/memory-thread-type.js";
export { type Content, type Message, type MessageInput, messageText, type Role } from "./message.js";
export { OpaqueThreadState } from "./opaque-state.js";
export { parseThreadState, serializeThread } from "./parse-thread-state.js";
export { Registry } from "./registry.js";
export type { RunConfig, RunOptions, ThreadRunner } from "./runner.js";
export { ServiceCredentialError, ServiceError } from "./service-error.js";
export {
  ServiceConflictError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceUnavailableError,
} from "./service-error-family.js";
export { UnsupportedSpecificationError } from "./specification-version.js";
export { defineStateType, type StateOf, type StateType, stateOf } from "./state-type.js";
export { type OpenStoreOptions, openStore } from "./store/open-store.js";
export type {
  CreateThreadOptions,
  ListOptions,
  ThreadPage,
  ThreadStore,
  ThreadSummary,
  ThreadTypeRegistry,
} from "./store/store.js";
export { MAX_LIST_LIMIT } from "./store/store.js";
export type {
  Alternative,
  AppendOptions,
  Checkpoint,
  EditOptions,
  ForkOptions,
  HistoryEvent,
  LogPoint,
  PointTarget,
  ReadOptions,
  RollbackOptions,
  SwitchOptions,
  Thread,
  ThreadCapabilities,
  ThreadSnapshot,
  UpdateOptions,
  ViewOptions,
} from "./thread.js";
export { START } from "./thread.js";
export { defineThreadType, type ThreadState, ThreadStateSchema, type ThreadType } from "./thread-type.js";
export { SPAN_ATTRIBUTES } from "./tracing/span-attributes.js";
export { tracedRunner } from "./tracing/traced-runner.js";
export { WorkflowPartlyDeletedError } from "./workflow/workflow-delete-error.js";
export type { WorkflowForkOptions } from "./workflow/workflow-fork.js";
export type { WorkflowSnapshot } from "./workflow/workflow-snapshot.js";
export type { WorkflowState, WorkflowStep } from "./workflow/workflow-state.js";
export { MAIN_THREAD, type SubThread, WorkflowThread } from "./workflow/workflow-thread.js";
export type { CreateWorkflowOptions } from "./workflow/workflow-thread-type.js";

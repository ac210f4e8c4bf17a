/**
 * What an adapter author imports: for a store, the `LogDriver` contract and the pieces thread-core builds on it; for
 * a runner, the checks every runner makes before it spends; for a service adapter, the service-failure helpers; for
 * a runtime, the context-provider plumbing; the zod schema values of the format and the zod they are built with;
 * the message, JSON, id and secret machinery adapters share; for a tool that draws a store's threads (the CLI, the
 * UI), the reading of a log's history graph. Applications import from `@skein/thread-core`; tests from
 * `@skein/thread-core/testing`. Each name has one entry point.
 */
/** The zod that thread-core's schemas are built with: adapters extend `ThreadStateSchema` with it. */
export { z } from "zod";
export { catalogueEntry, orderKey } from "../catalogue/catalogue-entry.js";
export { CATALOGUE_KEY, type CatalogueFields, catalogueOf } from "../catalogue/catalogue-fields.js";
export { scanCatalogue } from "../catalogue/catalogue-scan.js";
export {
  type CatalogueQuery,
  type CountQuery,
  comparePositions,
  isAfterCursor,
  type ListPosition,
  matchesQuery,
  matchesWhere,
} from "../catalogue/list-query.js";
export {
  type ContextProviderInvoked,
  type ContextProviderInvoking,
  type ContextProviderStart,
  checkContextProviders,
  initialProviderStates,
  type ProvidedContext,
  type ProvidedRun,
  type ProviderState,
  type ProvidersContext,
  runWithContextProviders,
} from "../context-provider.js";
export { encryptingLogDriver } from "../encryption/encrypting-log-driver.js";
export { DecryptionError, IntegrityError, KeyNotFoundError } from "../encryption/encryption-errors.js";
export { type OwnerShredding, ownerShredding } from "../encryption/owner-shredding.js";
export { HeadMovedError } from "../errors.js";
export { type ForkTip, type HistoryNode, historyGraph } from "../history/history-graph.js";
export { forkTipOf, readLogState } from "../history/log-history.js";
export { assertThreadId, newRandomId, newSortableId } from "../ids.js";
export {
  assertJsonValue,
  canonicalJson,
  cloneJson,
  findJsonProblem,
  type JsonCheckOptions,
  type JsonProblem,
  MAX_JSON_DEPTH,
} from "../json.js";
export { AppendPlan } from "../local/append-plan.js";
export { importConflicts } from "../local/import-conflicts.js";
export { LocalStore, type LocalStoreOptions } from "../local/local-store.js";
export type {
  AppliedOperation,
  CommitResult,
  ExpiryQuery,
  LogChange,
  LogDriver,
  LogRecord,
  MessageRewrite,
  RecordRewrite,
  RecordSummary,
  SegmentInfo,
  SegmentWriteOptions,
  StateRecord,
  StoredRecord,
} from "../local/log-driver.js";
export { eventSegments, newHeadSegment, OPERATIONS_KEPT } from "../local/log-driver.js";
export { type LogState, LogStateSchema } from "../local/log-state.js";
export { SEGMENT_INFO_CACHE_SIZE, SegmentInfoCache } from "../local/segment-info-cache.js";
export { selectView, type ViewSource } from "../local/view.js";
export type { PairParticipants } from "../manager/pair-key.js";
export type { ThreadManagerSaveOptions } from "../manager/thread-manager.js";
export { MemoryThreadStateSchema, memoryThreadType } from "../memory/memory-thread-type.js";
export { SortedPositions } from "../memory/sorted-positions.js";
export {
  ContentSchema,
  type DataContent,
  DataContentSchema,
  type ErrorContent,
  ErrorContentSchema,
  type FileContent,
  FileContentSchema,
  type FunctionCallContent,
  FunctionCallContentSchema,
  type FunctionResultContent,
  FunctionResultContentSchema,
  KNOWN_CONTENT_TYPES,
  MessageListSchema,
  MessageSchema,
  messageConflict,
  messageFingerprint,
  normalizeMessage,
  parseMessage,
  type ReasoningContent,
  ReasoningContentSchema,
  ROLES,
  type TextContent,
  TextContentSchema,
  UnknownContentSchema,
  type UriContent,
  UriContentSchema,
  type UsageContent,
  UsageContentSchema,
} from "../message.js";
export { redactedError, redactSecrets, rememberSecret } from "../redact-secrets.js";
export type { ParsedState, ParseOptions } from "../registry.js";
export {
  assertInputWithinBudget,
  assertViewWithinBudget,
  isServiceThread,
  type RemoteHistoryThread,
  type RunnerReach,
  refuseTransient,
  requireServedTarget,
  runTarget,
  runTargetType,
  servedTarget,
  type ThreadWrapper,
  unhonouredSettings,
} from "../runner.js";
export {
  assignServiceFailure,
  type HeaderSource,
  isRetryableStatus,
  readServiceHeaders,
  type ServiceFailure,
  type ServiceFailureDetails,
  systemErrorCode,
} from "../service-error.js";
export type { ServiceErrorOptions } from "../service-error-family.js";
export type {
  EncryptionCommonOptions,
  EncryptionKeyProvider,
  EncryptionKeys,
  EncryptionOptions,
  EncryptionOwnerKeyProvider,
  OwnerKeyRequest,
} from "../spec/encryption-options.js";
export type { RekeyOptions, RekeyOwnerReport, RekeyReport } from "../spec/rekey.js";
export type {
  BeginMessageOptions,
  FollowEvent,
  FollowOptions,
  MessageStatus,
  ReplyDelta,
  StreamingReply,
} from "../spec/streaming.js";
export { assertSpecificationVersion, SUPPORTED_SPECIFICATION_VERSIONS } from "../specification-version.js";
export type { StateTypeDefinition, TypedState } from "../state-type.js";
export { findStoreAdapter } from "../store/open-store.js";
export { PlainStateThread } from "../store/plain-state-thread.js";
export { redactUrl, redactUrlText } from "../store/redact-url.js";
export type { SkeinAdapter } from "../store/store.js";
export { registerStoreAdapter, SKEIN_STORE_PACKAGES } from "../store/store-schemes.js";
export { STREAMS_KEY } from "../streaming/stream-entries.js";
export { ReplyEndedError, StreamInProgressError } from "../streaming/stream-errors.js";
export type { BranchChange, ThreadUpdate } from "../thread.js";
export type { BindEnvironment, ThreadTypeDefinition } from "../thread-type.js";
export { TimestampSchema } from "../timestamp.js";
export type { WorkflowRollbackReport } from "../workflow/workflow-checkpoints.js";
export type { SubThreadMessage } from "../workflow/workflow-fork.js";
export type { ExecutionState } from "../workflow/workflow-state.js";
export {
  ExecutionStateSchema,
  STEP_STATUSES,
  type StepStatus,
  type WorkflowCheckpoint,
  WorkflowCheckpointSchema,
  type WorkflowData,
  WorkflowStateSchema,
  WorkflowStepSchema,
} from "../workflow/workflow-state.js";
export { workflowThreadType } from "../workflow/workflow-thread-type.js";
export {
  defineLogStore,
  type LogStoreAdapter,
  type LogStoreDefinition,
  type LogStoreKit,
  type StoreBinding,
} from "./define-log-store.js";

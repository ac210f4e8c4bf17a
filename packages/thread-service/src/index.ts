/** The context provider contract is thread-core's, shared with `withContextProviders` for any runner. */
export type {
  ContextProvider,
  ContextProviderInvoked,
  ContextProviderInvoking,
  ContextProviderStart,
  ProvidedContext,
} from "@skein/thread-core";
export { withContextProviders } from "@skein/thread-core";
export type { Attachment, FileAttachment } from "./attachments.js";
export type { BranchOptions } from "./branch-item.js";
export {
  CONFIG_THREAD_TYPE,
  type ConfigDocumentState,
  configIdOf,
  configThreadType,
} from "./config-document.js";
export * from "./errors.js";
export type { ServiceEvent } from "./event-stream.js";
export { LEASE_THREAD_TYPE, type LeaseState, leaseIdOf, leaseThreadType } from "./lease-thread.js";
export type { SendResult } from "./run-message.js";
export { type FailureSummary, SERVICE_RECORD_KEY, type ServiceRecord } from "./service-record.js";
export type { ThreadConfig, ThreadConfigInput } from "./thread-config.js";
export {
  type CreateServiceThreadOptions,
  createThreadService,
  type ThreadInfo,
  ThreadService,
  type ThreadServiceOptions,
} from "./thread-service.js";
export type { ThreadStatus } from "./thread-status.js";
export { benchThroughput, type ThroughputOptions, type ThroughputResult } from "./throughput-bench.js";

export type { Attachment, FileAttachment } from "./attachments.js";
export type { BranchOptions } from "./branch-item.js";
export {
  InvalidThreadConfigError,
  LeaseLostError,
  NotAServiceThreadError,
  OutputValidationError,
  type OutputValidationIssue,
  ServiceClosedError,
  ThreadKilledError,
  ThreadLockedError,
  ThreadPausedError,
  ThreadProcessingError,
  ThreadTimeoutError,
} from "./errors.js";
export type { ReplyEvent, ServiceEvent } from "./event-stream.js";
export type { ListServiceThreadsOptions, ServiceThreadSummary } from "./list-threads.js";
export type { ServiceEventsOptions } from "./resumed-events.js";
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

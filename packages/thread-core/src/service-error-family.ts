import {
  ConflictError,
  type SkeinErrorOptions,
  StoreUnavailableError,
  ThreadNotFoundError,
} from "./errors.js";
import { redactSecrets } from "./redact-secrets.js";
import {
  assignServiceFailure,
  ServiceError,
  type ServiceFailure,
  type ServiceFailureDetails,
} from "./service-error.js";

/*
 * The kinds of failure every remote adapter (OpenAI, Foundry, A2A) meets, one class each, told apart by
 * `source` rather than by a class per adapter. Each keeps the family an application already catches
 * (`ThreadNotFoundError`, `ConflictError`, `StoreUnavailableError`), so the CLI's exit codes and a store's
 * retry rules hold for it, and is a `ServiceError` too, for `ServiceError.isInstance` (not `instanceof`).
 * Their text quotes what the service said, which may quote the credential it was sent: each scrubs it.
 */

/** Options of a service error: `source`, the package that called the service (`adapter-openai`), is required. */
export interface ServiceErrorOptions extends SkeinErrorOptions {
  source: string;
}

/** The thread's conversation, response or task on the service is gone (404): deleted, expired, or never there. */
export class ServiceNotFoundError extends ThreadNotFoundError implements ServiceFailure {
  static override readonly marker: string = "skein.thread-core.ServiceNotFoundError";
  static override readonly alsoMarkers = [ServiceError.marker];
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs: number | undefined;
  /** What the service said, scrubbed. */
  readonly detail: string;

  constructor(
    threadId: string,
    detail: string,
    details: ServiceFailureDetails,
    options: ServiceErrorOptions,
  ) {
    super(threadId, options);
    this.detail = redactSecrets(detail);
    // ThreadNotFoundError's message ends with a period; say what the service said after it.
    this.message = `${this.message.slice(0, -1)}: ${this.detail}`;
    assignServiceFailure(this, details);
  }
}

/**
 * The service answered 409: another request is changing the same conversation or thread. Nothing was written;
 * unlike other 4xx answers it is retryable, since the other request ends.
 */
export class ServiceConflictError extends ConflictError implements ServiceFailure {
  static override readonly marker: string = "skein.thread-core.ServiceConflictError";
  static override readonly alsoMarkers = [ServiceError.marker];
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs: number | undefined;

  constructor(detail: string, details: ServiceFailureDetails, options: ServiceErrorOptions) {
    super(redactSecrets(detail), undefined, options);
    assignServiceFailure(this, { retryable: true, ...details });
  }
}

/**
 * The service could not be reached, did not answer in time, or kept failing (408, 429, 5xx) after the client's
 * own retries: always retryable, after `retryAfterMs` when the service said.
 */
export class ServiceUnavailableError extends StoreUnavailableError implements ServiceFailure {
  static override readonly marker: string = "skein.thread-core.ServiceUnavailableError";
  static override readonly alsoMarkers = [ServiceError.marker];
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  declare readonly retryAfterMs: number | undefined;

  constructor(message: string, details: ServiceFailureDetails, options: ServiceErrorOptions) {
    super(redactSecrets(message), options);
    assignServiceFailure(this, { ...details, retryable: true });
  }
}

/** The service kept answering 429 after the client's own retries; `retryAfterMs` says when to try again. */
export class ServiceRateLimitError extends ServiceUnavailableError {
  static override readonly marker: string = "skein.thread-core.ServiceRateLimitError";
}

import {
  ConflictError,
  type Message,
  redactSecrets,
  SkeinError,
  type SkeinErrorOptions,
  StoreUnavailableError,
  ThreadNotFoundError,
} from "@skein/thread-core";

/** The package named at the start of every message this adapter raises. */
export const SOURCE = "adapter-openai";

/*
 * The errors below quote what the service said, and a service (or a proxy before it) may quote the key it
 * was sent: each scrubs its text of every remembered credential (`rememberSecret`, which the adapter calls
 * with its client's key) and of key-shaped text, whoever constructs it.
 */

/** What every error that answers a request to the service carries. */
export interface ServiceFailure {
  /** The SDK call that failed, as `conversations.items.list`. */
  readonly operation: string;
  /** The HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** The service's `x-request-id`, for OpenAI support. */
  readonly requestId: string | undefined;
  /** The service's error code (`rate_limit_exceeded`, …), when it gave one. */
  readonly code: string | undefined;
  /** Whether the same call may succeed later. */
  readonly retryable: boolean;
}

export interface ServiceFailureDetails {
  operation: string;
  status?: number;
  requestId?: string;
  code?: string;
}

/** The service refused a request for a reason no more specific class below describes (400, 401, 403, 422, …). */
export class OpenAIServiceError extends SkeinError implements ServiceFailure {
  readonly operation: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly code: string | undefined;
  readonly retryable = false;

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(redactSecrets(message), { source: SOURCE, ...options });
    this.operation = details.operation;
    this.status = details.status;
    this.requestId = details.requestId;
    this.code = details.code;
  }
}

/** A conversation or response the thread points at is gone (404): deleted, expired, or never stored. */
export class OpenAINotFoundError extends ThreadNotFoundError implements ServiceFailure {
  readonly operation: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly code: string | undefined;
  readonly retryable = false;

  constructor(
    threadId: string,
    readonly detail: string,
    details: ServiceFailureDetails,
    options: SkeinErrorOptions = {},
  ) {
    super(threadId, { source: SOURCE, ...options });
    this.detail = redactSecrets(detail);
    this.message = `${this.message.slice(0, -1)}: ${this.detail}`;
    this.operation = details.operation;
    this.status = details.status;
    this.requestId = details.requestId;
    this.code = details.code;
  }
}

/**
 * The service answered 409: another request is changing the same conversation (a response still running
 * on it). Nothing was written; retrying after that request ends succeeds.
 */
export class OpenAIConflictError extends ConflictError implements ServiceFailure {
  readonly operation: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly code: string | undefined;
  readonly retryable = true;

  constructor(detail: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(redactSecrets(detail), undefined, { source: SOURCE, ...options });
    this.operation = details.operation;
    this.status = details.status;
    this.requestId = details.requestId;
    this.code = details.code;
  }
}

/** The service was unreachable, timed out or failed (5xx) after the client's own retries; retry later. */
export class OpenAIUnavailableError extends StoreUnavailableError implements ServiceFailure {
  readonly operation: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly code: string | undefined;

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(redactSecrets(message), { source: SOURCE, ...options });
    this.operation = details.operation;
    this.status = details.status;
    this.requestId = details.requestId;
    this.code = details.code;
  }
}

/** The service kept answering 429 after the client's own retries; `retryAfterMs` says when to try again. */
export class OpenAIRateLimitError extends OpenAIUnavailableError {
  constructor(
    message: string,
    details: ServiceFailureDetails,
    readonly retryAfterMs: number | undefined,
    options: SkeinErrorOptions = {},
  ) {
    super(message, details, options);
  }
}

/** The model run ended in status `failed`: the service gives its reason in `code` and the message. */
export class ResponseFailedError extends SkeinError {
  constructor(
    readonly responseId: string,
    readonly code: string | undefined,
    detail: string,
    options: SkeinErrorOptions = {},
  ) {
    super(redactSecrets(`Response ${responseId} failed${code ? ` (${code})` : ""}: ${detail}`), {
      source: SOURCE,
      ...options,
    });
  }
}

/** The run's `signal` was aborted: the runner stopped and appended nothing more. */
export class RunAbortedError extends SkeinError {
  constructor(
    readonly threadId: string,
    /** Messages appended before the abort (complete ones only). */
    readonly appended: readonly Message[],
    options: SkeinErrorOptions = {},
  ) {
    super(
      `The run on thread ${JSON.stringify(threadId)} was aborted after appending ${appended.length} message(s).`,
      { source: SOURCE, ...options },
    );
  }
}

/** A thread, runner or adapter needs something the caller did not give: a client, a model. */
export class OpenAIConfigurationError extends SkeinError {
  constructor(detail: string, options: SkeinErrorOptions = {}) {
    super(detail, { source: SOURCE, ...options });
  }
}

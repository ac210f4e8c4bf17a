import {
  type Message,
  ServiceConflictError,
  ServiceCredentialError,
  ServiceError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceUnavailableError,
  SkeinError,
  type SkeinErrorOptions,
} from "@skein/thread-core";
import { redactSecrets, type ServiceFailureDetails } from "@skein/thread-core/driver";

/** The package named at the start of every message this adapter raises. */
export const SOURCE = "adapter-openai";

/*
 * The errors below quote what the service said, and a service (or a proxy before it) may quote the key it
 * was sent: each scrubs its text of every remembered credential (`rememberSecret`, which the adapter calls
 * with its client's key) and of key-shaped text, whoever constructs it.
 */

/**
 * The service refused a request for a reason no more specific class below describes (400, 422, …). A
 * `ServiceError`, as the failures of every remote adapter are.
 */
export class OpenAIServiceError extends ServiceError {
  static override readonly marker: string = "skein.adapter-openai.OpenAIServiceError";

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(message, details, { source: SOURCE, ...options });
  }
}

/**
 * The service refused the key (401) or its permissions (403): fix the key, the project or the organisation;
 * retrying as is will not help. Both an `OpenAIServiceError` and a `ServiceCredentialError`.
 *
 * @deprecated Catch `ServiceCredentialError` (from `@skein/thread-core`) with `source` "adapter-openai".
 */
export class OpenAICredentialError extends OpenAIServiceError {
  static override readonly marker: string = "skein.adapter-openai.OpenAICredentialError";
  static override readonly alsoMarkers = [ServiceCredentialError.marker];
}

/*
 * The not-found, conflict, unavailable and rate-limit errors are thread-core's service-error family with
 * `source: "adapter-openai"`. The classes below keep their old names, markers and `name`s, so an existing
 * `OpenAINotFoundError.isInstance(error)` (or `instanceof`) still holds for what this adapter throws.
 */

/**
 * A conversation or response the thread points at is gone (404): deleted, expired, or never stored.
 *
 * @deprecated Use `ServiceNotFoundError` (from `@skein/thread-core`) with `source` "adapter-openai".
 */
export class OpenAINotFoundError extends ServiceNotFoundError {
  static override readonly marker: string = "skein.adapter-openai.OpenAINotFoundError";

  constructor(
    threadId: string,
    detail: string,
    details: ServiceFailureDetails,
    options: SkeinErrorOptions = {},
  ) {
    super(threadId, detail, details, { source: SOURCE, ...options });
  }
}

/**
 * The service answered 409: another request is changing the same conversation (a response still running
 * on it). Nothing was written; retrying after that request ends succeeds.
 *
 * @deprecated Use `ServiceConflictError` (from `@skein/thread-core`) with `source` "adapter-openai".
 */
export class OpenAIConflictError extends ServiceConflictError {
  static override readonly marker: string = "skein.adapter-openai.OpenAIConflictError";

  constructor(detail: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(detail, details, { source: SOURCE, ...options });
  }
}

/**
 * The service was unreachable, timed out or failed (408, 5xx) after the client's own retries; retry later.
 *
 * @deprecated Use `ServiceUnavailableError` (from `@skein/thread-core`) with `source` "adapter-openai".
 */
export class OpenAIUnavailableError extends ServiceUnavailableError {
  static override readonly marker: string = "skein.adapter-openai.OpenAIUnavailableError";

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(message, details, { source: SOURCE, ...options });
  }
}

/**
 * The service kept answering 429 after the client's own retries; `retryAfterMs` says when to try again.
 * Still an `OpenAIUnavailableError`, as before, and a `ServiceRateLimitError` for `ServiceRateLimitError.isInstance`.
 *
 * @deprecated Use `ServiceRateLimitError` (from `@skein/thread-core`) with `source` "adapter-openai".
 */
export class OpenAIRateLimitError extends OpenAIUnavailableError {
  static override readonly marker: string = "skein.adapter-openai.OpenAIRateLimitError";
  static override readonly alsoMarkers = [ServiceRateLimitError.marker];
}

/** The model run ended in status `failed`: the service gives its reason in `code` and the message. */
export class ResponseFailedError extends SkeinError {
  static override readonly marker: string = "skein.adapter-openai.ResponseFailedError";
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
  static override readonly marker: string = "skein.adapter-openai.RunAbortedError";
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
  static override readonly marker: string = "skein.adapter-openai.OpenAIConfigurationError";
  constructor(detail: string, options: SkeinErrorOptions = {}) {
    super(detail, { source: SOURCE, ...options });
  }
}

import {
  ServiceConflictError,
  ServiceCredentialError,
  ServiceError,
  ServiceNotFoundError,
  ServiceUnavailableError,
  SkeinError,
  type SkeinErrorOptions,
} from "@skein/thread-core";
import { redactSecrets, type ServiceFailureDetails } from "@skein/thread-core/driver";

/** The package named at the start of every message this adapter raises. */
export const SOURCE = "adapter-foundry";

/*
 * The errors below quote what the service said, and a service (or a proxy before it) may quote the token it
 * was sent: each scrubs its text of every remembered credential (`rememberSecret`: the adapter remembers
 * each token its credential hands out) and of token-shaped text, whoever constructs it.
 */

/**
 * The service refused a request for a reason no more specific class describes (400, 422, …). A
 * `ServiceError`, as the failures of every remote adapter are.
 */
export class FoundryServiceError extends ServiceError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryServiceError";

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(message, details, { source: SOURCE, ...options });
  }
}

/*
 * The not-found, conflict and unavailable errors are thread-core's service-error family with
 * `source: "adapter-foundry"`. The classes below keep their old names, markers and `name`s, so an existing
 * `FoundryNotFoundError.isInstance(error)` (or `instanceof`) still holds for what this adapter throws.
 */

/**
 * The conversation or agent thread the skein thread points at is gone (404): deleted, or never there.
 *
 * @deprecated Use `ServiceNotFoundError` (from `@skein/thread-core`) with `source` "adapter-foundry".
 */
export class FoundryNotFoundError extends ServiceNotFoundError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryNotFoundError";

  constructor(
    threadId: string,
    detail: string,
    details: ServiceFailureDetails,
    options: SkeinErrorOptions = {},
  ) {
    super(threadId, detail, details, { source: SOURCE, ...options });
  }
}

/** The agent a run names does not exist in the project (404 on the agent, not on the thread). */
export class FoundryAgentNotFoundError extends SkeinError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryAgentNotFoundError";
  constructor(
    readonly agent: string,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `Agent ${JSON.stringify(agent)} was not found in the Foundry project; create it there or name another.`,
      { source: SOURCE, ...options },
    );
  }
}

/**
 * The service answered 409: another request is changing the same thread. Nothing was written.
 *
 * @deprecated Use `ServiceConflictError` (from `@skein/thread-core`) with `source` "adapter-foundry".
 */
export class FoundryConflictError extends ServiceConflictError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryConflictError";

  constructor(detail: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(detail, details, { source: SOURCE, ...options });
  }
}

/**
 * Foundry was unreachable, did not answer within the request timeout, or kept failing (408, 429, 5xx) after
 * the client's own retries. `retryAfterMs` is the service's hint, when it gave one.
 *
 * @deprecated Use `ServiceUnavailableError` (from `@skein/thread-core`) with `source` "adapter-foundry".
 */
export class FoundryUnavailableError extends ServiceUnavailableError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryUnavailableError";

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(message, details, { source: SOURCE, ...options });
  }
}

/** How an agent run (a classic run or a response) ended without an answer. */
export type RunEnding = "failed" | "cancelled" | "expired" | "incomplete" | "timed_out";

/** An agent run ended as failed, cancelled, expired, incomplete, or outlived the runner's `runTimeoutMs`. */
export class FoundryRunError extends SkeinError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryRunError";
  constructor(
    readonly threadId: string,
    /** The classic run id (`run_…`) or the response id (`resp_…`). */
    readonly runId: string,
    readonly ending: RunEnding,
    /** The service's error code (`server_error`, `rate_limit_exceeded`, `max_output_tokens`, …). */
    readonly code: string | undefined,
    detail: string,
    options: SkeinErrorOptions = {},
  ) {
    super(
      `Run ${runId} on thread ${JSON.stringify(threadId)} ${describeEnding(ending)}: ${redactSecrets(detail)}`,
      {
        source: SOURCE,
        ...options,
      },
    );
  }

  /** Whether running again may succeed: expiry, time-outs and the service's own transient failures. */
  get retryable(): boolean {
    return (
      this.ending === "expired" ||
      this.ending === "timed_out" ||
      this.code === "server_error" ||
      this.code === "rate_limit_exceeded"
    );
  }
}

function describeEnding(ending: RunEnding): string {
  return ending === "timed_out" ? "did not finish in time" : `ended as ${ending}`;
}

/** The adapter, a thread or the runner lacks something only the caller can give: a client, an endpoint. */
export class FoundryConfigurationError extends SkeinError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryConfigurationError";
  constructor(detail: string, options: SkeinErrorOptions = {}) {
    super(detail, { source: SOURCE, ...options });
  }
}

/**
 * A credential failure: the Azure credential gave no token (no login, a wrong or expired secret, no managed
 * identity), so nothing was sent (`FoundryCredentialError.noToken`); or the service refused the token it was
 * sent (401, 403). Both a `FoundryServiceError` and a `ServiceCredentialError`; never retryable as is.
 *
 * @deprecated Catch `ServiceCredentialError` (from `@skein/thread-core`) with `source` "adapter-foundry".
 */
export class FoundryCredentialError extends FoundryServiceError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryCredentialError";
  static override readonly alsoMarkers = [ServiceCredentialError.marker];

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(message, { ...details, retryable: false }, options);
  }

  /**
   * The credential gave no token (it threw, or resolved none), so nothing was sent; its `cause` is the
   * credential's error, scrubbed (for a null token, an error that says so).
   */
  static noToken(detail: string, options: SkeinErrorOptions = {}): FoundryCredentialError {
    return new FoundryCredentialError(
      `The Azure credential gave no token for Foundry: ${redactSecrets(detail)} ` +
        "Sign in (az login), or pass foundryAdapter({ credential }) a credential that works here.",
      { operation: "credential.getToken" },
      options,
    );
  }
}

import {
  ConflictError,
  redactSecrets,
  SkeinError,
  type SkeinErrorOptions,
  StoreUnavailableError,
  ThreadNotFoundError,
} from "@skein/thread-core";

/** The package named at the start of every message this adapter raises. */
export const SOURCE = "adapter-foundry";

/*
 * The errors below quote what the service said, and a service (or a proxy before it) may quote the token it
 * was sent: each scrubs its text of every remembered credential (`rememberSecret`: the adapter remembers
 * each token its credential hands out) and of token-shaped text, whoever constructs it.
 */

/** What every error that answers a request to Foundry carries. */
export interface ServiceFailure {
  /** The SDK call that failed, as `messages.list` or `conversations.items.create`. */
  readonly operation: string;
  /** The HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** The service's request id (`x-request-id`, `apim-request-id`), for Azure support. */
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

function assignDetails(target: ServiceFailure, details: ServiceFailureDetails): void {
  Object.assign(target, {
    operation: details.operation,
    status: details.status,
    requestId: details.requestId,
    code: details.code,
  });
}

/** The service refused a request for a reason no more specific class describes (400, 401, 403, 422, …). */
export class FoundryServiceError extends SkeinError implements ServiceFailure {
  static override readonly marker: string = "skein.adapter-foundry.FoundryServiceError";
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  readonly retryable = false;

  constructor(message: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(redactSecrets(message), { source: SOURCE, ...options });
    assignDetails(this, details);
  }
}

/** The conversation or agent thread the skein thread points at is gone (404): deleted, or never there. */
export class FoundryNotFoundError extends ThreadNotFoundError implements ServiceFailure {
  static override readonly marker: string = "skein.adapter-foundry.FoundryNotFoundError";
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  readonly retryable = false;

  constructor(
    threadId: string,
    detail: string,
    details: ServiceFailureDetails,
    options: SkeinErrorOptions = {},
  ) {
    super(threadId, { source: SOURCE, ...options });
    // ThreadNotFoundError's message ends with a period; say what the service said after it.
    this.message = `${this.message.slice(0, -1)}: ${redactSecrets(detail)}`;
    assignDetails(this, details);
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

/** The service answered 409: another request is changing the same thread. Nothing was written. */
export class FoundryConflictError extends ConflictError implements ServiceFailure {
  static override readonly marker: string = "skein.adapter-foundry.FoundryConflictError";
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  readonly retryable = true;

  constructor(detail: string, details: ServiceFailureDetails, options: SkeinErrorOptions = {}) {
    super(redactSecrets(detail), undefined, { source: SOURCE, ...options });
    assignDetails(this, details);
  }
}

/**
 * Foundry was unreachable, did not answer within the request timeout, or kept failing (429, 5xx) after the
 * client's own retries. `retryAfterMs` is the service's hint, when it gave one.
 */
export class FoundryUnavailableError extends StoreUnavailableError implements ServiceFailure {
  static override readonly marker: string = "skein.adapter-foundry.FoundryUnavailableError";
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;

  constructor(
    message: string,
    details: ServiceFailureDetails,
    readonly retryAfterMs: number | undefined = undefined,
    options: SkeinErrorOptions = {},
  ) {
    super(redactSecrets(message), { source: SOURCE, ...options });
    assignDetails(this, details);
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
 * The Azure credential could not give a token (no login, a wrong or expired secret, no managed identity), so
 * no request was sent. Its `cause` is the credential's error, scrubbed.
 */
export class FoundryCredentialError extends SkeinError {
  static override readonly marker: string = "skein.adapter-foundry.FoundryCredentialError";
  constructor(detail: string, options: SkeinErrorOptions = {}) {
    super(
      `The Azure credential gave no token for Foundry: ${redactSecrets(detail)} ` +
        "Sign in (az login), or pass foundryAdapter({ credential }) a credential that works here.",
      { source: SOURCE, ...options },
    );
  }
}

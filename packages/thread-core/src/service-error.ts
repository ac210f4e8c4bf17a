import { SkeinError, type SkeinErrorOptions } from "./errors.js";
import { redactSecrets } from "./redact-secrets.js";

/** What every error that answers a call to a remote service (OpenAI, Foundry, an A2A agent) carries. */
export interface ServiceFailure {
  /** The call that failed, as the adapter names it: `conversations.items.list`, `message/send`. */
  readonly operation: string;
  /** The HTTP status, when the service answered; `undefined` when it could not be reached. */
  readonly status: number | undefined;
  /** The service's request id (`x-request-id`, `apim-request-id`, the SDK's own), for the provider's support. */
  readonly requestId: string | undefined;
  /** The service's error code (`rate_limit_exceeded`, …), or the socket's (`ECONNREFUSED`), when there is one. */
  readonly code: string | undefined;
  /**
   * Whether the same call may succeed later: 408, 429, 5xx and network failures are; 4xx answers are not, nor
   * an answer that failed without a status (a stream's `error` event) unless its code says the service broke
   * or throttled (`server_error`, `rate_limit_exceeded`).
   */
  readonly retryable: boolean;
  /** How long the service asked to wait (`Retry-After`, `retry-after-ms`), when it said. */
  readonly retryAfterMs: number | undefined;
}

/**
 * What an adapter knows about one failed call. `retryable` defaults to {@link isRetryableStatus} of `status`;
 * without a status, to whether `code` is one a service gives for a failure of its own or a throttle.
 */
export interface ServiceFailureDetails {
  operation: string;
  status?: number | undefined;
  requestId?: string | undefined;
  code?: string | undefined;
  retryable?: boolean | undefined;
  retryAfterMs?: number | undefined;
}

/**
 * The one rule every remote adapter applies to an answer's status: a call that timed out (408), was throttled
 * (429) or met a server failure (5xx) may succeed later; any other answer will not. No status says nothing
 * about a later try (`false`): a network failure is retryable because its adapter says so, not by this rule.
 */
export function isRetryableStatus(status: number | undefined): boolean {
  return status !== undefined && (status === 408 || status === 429 || status >= 500);
}

/**
 * The codes of a failure without a status (an `error` event in a stream that began with 200) that say the
 * service broke or throttled, so the same call may succeed later; any other code (`context_length_exceeded`,
 * `invalid_prompt`) is about the request and will fail again.
 */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(["server_error", "rate_limit_exceeded"]);

function isRetryableFailure(details: ServiceFailureDetails): boolean {
  if (details.status !== undefined) return isRetryableStatus(details.status);
  return details.code !== undefined && RETRYABLE_CODES.has(details.code);
}

/** Sets the `ServiceFailure` fields on an error; for adapter errors that extend another family. */
export function assignServiceFailure(error: Error, details: ServiceFailureDetails): void {
  Object.assign(error, {
    operation: details.operation,
    status: details.status,
    requestId: details.requestId,
    code: details.code,
    retryable: details.retryable ?? isRetryableFailure(details),
    retryAfterMs: details.retryAfterMs,
  });
}

/**
 * A remote service refused or failed a call. Every remote adapter maps its SDK's failures to it the same way
 * (`assignServiceFailure` in `@skein/thread-core/driver`). Adapter errors of another family (an adapter's
 * not-found error is a `ThreadNotFoundError`, its unavailable error a `StoreUnavailableError`) carry the same
 * fields and count as a `ServiceError` for `ServiceError.isInstance`, which is the way to check it (`instanceof`
 * misses them).
 */
export class ServiceError extends SkeinError implements ServiceFailure {
  static override readonly marker: string = "skein.thread-core.ServiceError";
  declare readonly operation: string;
  declare readonly status: number | undefined;
  declare readonly requestId: string | undefined;
  declare readonly code: string | undefined;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs: number | undefined;

  constructor(message: string, details: ServiceFailureDetails, options?: SkeinErrorOptions) {
    super(redactSecrets(message), options);
    assignServiceFailure(this, details);
  }
}

/**
 * The service refused the credentials (401, 403), or the credential gave no token and nothing was sent.
 * Retrying does not help until the credential is fixed.
 */
export class ServiceCredentialError extends ServiceError {
  static override readonly marker: string = "skein.thread-core.ServiceCredentialError";
}

/** Reads a header by name: a `Headers`, or an SDK's own header map with `get`. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

/**
 * The request id and the wait a service asked for, from its answer's headers: `x-request-id`,
 * `apim-request-id` or `x-ms-request-id`; `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date.
 */
export function readServiceHeaders(
  headers: HeaderSource | undefined,
  now = Date.now(),
): { requestId: string | undefined; retryAfterMs: number | undefined } {
  const header = (name: string) =>
    typeof headers?.get === "function" ? (headers.get(name) ?? undefined) : undefined;
  return {
    requestId: header("x-request-id") ?? header("apim-request-id") ?? header("x-ms-request-id"),
    retryAfterMs: retryAfterMs(header("retry-after-ms"), header("retry-after"), now),
  };
}

/** The longest wait a service may ask for: the most `setTimeout` takes (2^31-1 ms, about 24.8 days). */
const MAX_RETRY_AFTER_MS = 2 ** 31 - 1;

/** An HTTP date as RFC 9110 requires senders to write it (IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * The wait an answer asked for, strictly: `retry-after-ms` as a non-negative decimal number, else
 * `Retry-After` as whole seconds (RFC 9110's delay-seconds) or as an IMF-fixdate; anything else (a sign, a
 * hex or exponent number, trailing text, another date form) is no wait. Clamped to {@link MAX_RETRY_AFTER_MS}.
 */
function retryAfterMs(
  milliseconds: string | undefined,
  retryAfter: string | undefined,
  now: number,
): number | undefined {
  const exact = milliseconds?.trim();
  if (exact !== undefined && /^\d+(?:\.\d+)?$/.test(exact)) return clampWait(Number(exact));
  const value = retryAfter?.trim();
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return clampWait(Number(value) * 1000);
  if (!IMF_FIXDATE.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : clampWait(Math.max(0, date - now));
}

function clampWait(milliseconds: number): number {
  return Math.min(milliseconds, MAX_RETRY_AFTER_MS);
}

/**
 * The system error code (`ECONNREFUSED`, `ENOTFOUND`, …) in an error's `cause` chain: what a failed `fetch` or
 * socket carries below the SDK's own error, and the `code` of the `ServiceError` for a network failure.
 */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; typeof current === "object" && current !== null && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

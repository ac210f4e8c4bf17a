import { PointNotFoundError, SkeinError } from "@skein/thread-core";
import {
  readServiceHeaders,
  redactedError,
  redactSecrets,
  type ServiceFailureDetails,
  systemErrorCode,
} from "@skein/thread-core/driver";
import OpenAI from "openai";
import {
  OpenAIConflictError,
  OpenAICredentialError,
  OpenAINotFoundError,
  OpenAIRateLimitError,
  OpenAIServiceError,
  OpenAIUnavailableError,
  SOURCE,
} from "./errors.js";

/** What a failed call is about, so its error can name the thread and the point it concerns. */
export interface CallContext {
  /** The SDK method, as `conversations.items.list`. */
  operation: string;
  /** The skein thread the call serves: a 404 becomes an `OpenAINotFoundError` for it. */
  threadId?: string;
  /** A cursor or point id the call names, and the request field that carries it. */
  point?: { param: string; id: string };
}

/**
 * Runs one SDK call and turns its failures into typed skein errors (after the client's own retries), with
 * a scrubbed copy of the SDK error as `cause` and the client's key and every key-shaped text scrubbed.
 */
export async function callService<T>(
  client: OpenAI,
  context: CallContext,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw mapServiceError(error, client, context);
  }
}

/** Longest excerpt of a body that is not JSON that an error quotes. */
const EXCERPT_LENGTH = 120;

/**
 * The typed skein error for an SDK failure; aborts and errors that are already skein's pass through. The
 * cause is a scrubbed copy of the SDK's error: its message, body and the response headers (which a proxy
 * may echo the key in) hold no key.
 */
export function mapServiceError(error: unknown, client: OpenAI, context: CallContext): unknown {
  if (SkeinError.isInstance(error) || error instanceof OpenAI.APIUserAbortError) return error;
  const secrets = client.apiKey ? [client.apiKey] : [];
  if (error instanceof SyntaxError) {
    // The SDK parses a 200 body with JSON.parse: V8's message quotes the start of the body.
    const excerpt = redactSecrets(error.message, secrets).slice(0, EXCERPT_LENGTH);
    return new OpenAIServiceError(
      `OpenAI answered ${context.operation} with a body that is not JSON (${excerpt}); is baseURL an OpenAI-compatible API?`,
      // The same answer comes back until baseURL is fixed: not retryable.
      { operation: context.operation, retryable: false },
      { cause: redactedError(error, secrets) },
    );
  }
  if (!(error instanceof OpenAI.APIError)) return error;
  const body = (error.error ?? {}) as { message?: unknown; param?: unknown };
  const detail = redactSecrets(typeof body.message === "string" ? body.message : error.message, secrets);
  const headers = readServiceHeaders(error.headers);
  const details: ServiceFailureDetails = {
    operation: context.operation,
    status: error.status,
    requestId: error.requestID ?? headers.requestId,
    code: typeof error.code === "string" ? error.code : undefined,
    retryAfterMs: headers.retryAfterMs,
  };
  const options = { cause: redactedError(error, secrets) };
  if (error instanceof OpenAI.APIConnectionError) {
    const timedOut = error instanceof OpenAI.APIConnectionTimeoutError;
    const what = timedOut ? "did not answer in time" : "could not be reached";
    // The socket's code (ECONNREFUSED, …) is the one an A2A or Foundry failure of the same kind carries.
    const code = timedOut ? "timeout" : systemErrorCode(error);
    return new OpenAIUnavailableError(
      `OpenAI ${what} for ${context.operation}: ${detail}`,
      {
        ...details,
        ...(code === undefined ? {} : { code }),
      },
      options,
    );
  }
  const status = error.status ?? 0;
  const request = details.requestId ? ` (request ${details.requestId})` : "";
  // A stream can fail after its 200: the SDK then gives the service's error without a status, retryable
  // (by `ServiceError`'s rule) only for a code that says the service broke or throttled.
  const said = `${error.status ? `OpenAI answered ${status} to` : "OpenAI failed during"} ${context.operation}${request}: ${detail}`;
  const param = typeof body.param === "string" ? body.param : undefined;
  if ((status === 400 || status === 404) && context.point && param === context.point.param) {
    return new PointNotFoundError(context.threadId ?? "", context.point.id, { source: SOURCE, ...options });
  }
  const missingResponse = status === 400 && param === "previous_response_id" && /not found/i.test(detail);
  if ((status === 404 || missingResponse) && context.threadId !== undefined) {
    return new OpenAINotFoundError(context.threadId, said, details, options);
  }
  if (status === 409) return new OpenAIConflictError(said, details, options);
  if (status === 429) return new OpenAIRateLimitError(said, details, options);
  if (status >= 500 || status === 408) return new OpenAIUnavailableError(said, details, options);
  if (status === 401 || status === 403) return new OpenAICredentialError(said, details, options);
  return new OpenAIServiceError(said, details, options);
}

import { PointNotFoundError, SkeinError } from "@skein/thread-core";
import {
  type HeaderSource,
  readServiceHeaders,
  redactedError,
  redactSecrets,
  type ServiceFailureDetails,
  systemErrorCode,
} from "@skein/thread-core/driver";
import {
  FoundryConflictError,
  FoundryCredentialError,
  FoundryNotFoundError,
  FoundryServiceError,
  FoundryUnavailableError,
  SOURCE,
} from "./errors.js";

/** What a call is about, so its failure can name the thread and the point it concerns. */
export interface CallContext {
  /** The SDK method, as `messages.list` or `conversations.items.create`. */
  operation: string;
  /** The skein thread the call serves: a 404 becomes a `FoundryNotFoundError` for it. */
  threadId?: string;
  /** A message or item id the call names: a 404 (or a refused `after` cursor) is a `PointNotFoundError`. */
  point?: string;
}

export interface CallLimits {
  /** Each request is abandoned after this long, as `FoundryUnavailableError` with code `timeout`. */
  requestTimeoutMs: number;
  /** The caller's signal: its abort is rethrown as is, never wrapped. */
  signal?: AbortSignal | undefined;
  /**
   * Run first, under the same deadline, for a client whose credential failures cannot be recognised once
   * the call is made (see `bearerTokenCheck`): it rejects with `FoundryCredentialError`, and nothing is sent.
   */
  checkCredential?: ((signal: AbortSignal) => Promise<void>) | undefined;
}

/**
 * Runs one SDK call under a deadline and turns its failures (after the client's own retries) into typed
 * skein errors. `call` receives the signal to hand to the SDK.
 */
export async function callService<T>(
  context: CallContext,
  limits: CallLimits,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(limits.requestTimeoutMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, deadline]) : deadline;
  try {
    await limits.checkCredential?.(signal);
    return await call(signal);
  } catch (error) {
    if (limits.signal?.aborted) throw limits.signal.reason;
    if (deadline.aborted && !SkeinError.isInstance(error)) {
      throw new FoundryUnavailableError(
        `Foundry did not answer ${context.operation} within ${limits.requestTimeoutMs} ms.`,
        { operation: context.operation, code: "timeout" },
        { cause: redactedError(error) },
      );
    }
    throw mapServiceError(error, context);
  }
}

interface FailureFacts {
  status: number | undefined;
  code: string | undefined;
  param: string | undefined;
  requestId: string | undefined;
  retryAfterMs: number | undefined;
  detail: string;
}

/** Longest excerpt of what the service said that an error quotes: a body that is not JSON can be anything. */
const EXCERPT_LENGTH = 300;

/**
 * The typed skein error for an SDK failure; errors that are not the service's pass through unchanged. The
 * cause is a scrubbed copy of the SDK's error, without the request the SDK attaches (its headers hold the
 * bearer token) and with response headers and bodies scrubbed.
 */
export function mapServiceError(error: unknown, context: CallContext): unknown {
  if (SkeinError.isInstance(error)) return error;
  // Credential failures arrive here already typed, from guardedCredential (the credential the adapter
  // hands to, or obtains from, each client) or bearerTokenCheck; the openai client wraps what its token
  // function threw in an OpenAIError of its own, the Azure pipeline passes it on as it is.
  const wrapped = skeinCause(error);
  if (wrapped) return wrapped;
  if (error instanceof SyntaxError) {
    // The openai client parses a 200 body with JSON.parse: V8's message quotes the start of the body.
    // The same answer comes back until the endpoint is fixed: not retryable.
    return new FoundryServiceError(
      `Foundry answered ${context.operation} with a body that is not JSON (${excerpt(error.message)}); is the endpoint a Foundry project?`,
      { operation: context.operation, retryable: false },
      { cause: redactedError(error) },
    );
  }
  if (!(error instanceof Error) || !isServiceFailure(error)) return error;
  const facts = factsOf(error);
  const details: ServiceFailureDetails = {
    operation: context.operation,
    status: facts.status,
    requestId: facts.requestId,
    code: facts.code,
    retryAfterMs: facts.retryAfterMs,
  };
  const options = { cause: redactedError(error) };
  const { status } = facts;
  if (status === undefined && isNetworkFailure(error)) {
    // The socket's code (ECONNREFUSED, …) is the one an OpenAI or A2A failure of the same kind carries.
    return new FoundryUnavailableError(
      `Foundry could not be reached for ${context.operation}: ${facts.detail}`,
      { ...details, code: systemErrorCode(error) ?? facts.code },
      options,
    );
  }
  if (status === undefined) {
    // The service answered, then failed without a status (an `error` event in a stream that began with 200):
    // `ServiceError` makes it retryable only for a code that says the service broke or throttled.
    return new FoundryServiceError(
      `Foundry failed during ${context.operation}${facts.requestId ? ` (request ${facts.requestId})` : ""}: ${facts.detail}`,
      details,
      options,
    );
  }
  const said = `Foundry answered ${status} to ${context.operation}${facts.requestId ? ` (request ${facts.requestId})` : ""}: ${facts.detail}`;
  if (context.point && (status === 404 || (status === 400 && facts.param === "after"))) {
    return new PointNotFoundError(context.threadId ?? "", context.point, { source: SOURCE, ...options });
  }
  if (status === 404 && context.threadId !== undefined) {
    return new FoundryNotFoundError(context.threadId, said, details, options);
  }
  if (status === 409) return new FoundryConflictError(said, details, options);
  if (status === 429 || status === 408 || status >= 500) {
    return new FoundryUnavailableError(said, details, options);
  }
  if (status === 401 || status === 403) return new FoundryCredentialError(said, details, options);
  return new FoundryServiceError(said, details, options);
}

/** The first SkeinError in an error's `cause` chain, if any. */
function skeinCause(error: unknown): SkeinError | undefined {
  let cause = (error as { cause?: unknown } | undefined)?.cause;
  for (let depth = 0; cause !== undefined && depth < 8; depth++) {
    if (SkeinError.isInstance(cause)) return cause;
    cause = (cause as { cause?: unknown } | null)?.cause;
  }
  return undefined;
}

/** Errors of the two SDKs' HTTP layers, and system errors (refused connections) below them. */
function isServiceFailure(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    // Azure's own guard (`isRestError`, in @azure/core-rest-pipeline, which we do not depend on directly) is
    // `instanceof` or this same name test; the name alone also holds when each SDK carries its own copy.
    error.name === "RestError" ||
    // openai's APIError family (connection errors included) always has these two own fields.
    ("status" in error && "headers" in error) ||
    (typeof code === "string" && /^E[A-Z]+$/.test(code))
  );
}

/**
 * The request never got an answer: a socket error below the SDK's (`ECONNREFUSED`, …), the openai client's
 * connection errors (a timeout has no socket code), or Azure's failure to send.
 */
function isNetworkFailure(error: Error): boolean {
  return (
    systemErrorCode(error) !== undefined ||
    isOpenAIConnectionError(error) ||
    (error as { code?: unknown }).code === "REQUEST_SEND_ERROR"
  );
}

/**
 * The openai client (which comes through @azure/ai-projects, so its classes are not ours to import) raises
 * `APIConnectionError` (and its `APIConnectionTimeoutError`) for a request that got no answer; their `name`
 * is plain `Error`, so the class is found by its constructor's name along the prototype chain.
 */
function isOpenAIConnectionError(error: Error): boolean {
  for (let proto = Object.getPrototypeOf(error); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: unknown } }).constructor?.name === "APIConnectionError")
      return true;
  }
  return false;
}

function factsOf(error: Error): FailureFacts {
  const fields = error as Error & Record<string, unknown>;
  const statusValue = fields.statusCode ?? fields.status;
  const status = typeof statusValue === "number" ? statusValue : undefined;
  // Azure: `details` is the parsed `{ error: { message, code, param } }`; openai: `error` is its inner object.
  const azureBody = (fields.details as { error?: Record<string, unknown> } | undefined)?.error;
  const body = azureBody ?? (fields.error as Record<string, unknown> | undefined) ?? {};
  const headers = ((fields.response as { headers?: HeaderSource } | undefined)?.headers ?? fields.headers) as
    | HeaderSource
    | undefined;
  const answered = readServiceHeaders(headers);
  const code =
    typeof body.code === "string" ? body.code : typeof fields.code === "string" ? fields.code : undefined;
  const message = typeof body.message === "string" ? body.message : error.message;
  return {
    status,
    code,
    param: typeof body.param === "string" ? body.param : undefined,
    requestId: (typeof fields.requestID === "string" ? fields.requestID : undefined) ?? answered.requestId,
    retryAfterMs: answered.retryAfterMs,
    detail: excerpt(message),
  };
}

/** The text scrubbed, then cut to EXCERPT_LENGTH characters. */
function excerpt(text: string): string {
  const scrubbed = redactSecrets(text);
  return scrubbed.length > EXCERPT_LENGTH ? `${scrubbed.slice(0, EXCERPT_LENGTH)}…` : scrubbed;
}

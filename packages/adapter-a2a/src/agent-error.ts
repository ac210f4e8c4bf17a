import { A2AError } from "@a2a-js/sdk/errors";
import { SkeinError } from "@skein/thread-core";
import {
  isRetryableStatus,
  readServiceHeaders,
  redactedError,
  systemErrorCode,
} from "@skein/thread-core/driver";
import {
  A2aAgentError,
  A2aAgentUnavailableError,
  A2aCredentialError,
  A2aTaskNotFoundError,
  type AgentFailureOptions,
} from "./errors.js";
import { failedAnswer } from "./failed-answer.js";

/** One call to an agent: whose, which, and the task it concerns. */
export interface AgentCall {
  agentUrl: string;
  /** The A2A method, as `SendMessage`, `GetTask`, or `GetAgentCard`. */
  operation: string;
  taskId?: string | undefined;
}

/**
 * The SDK's own messages for an HTTP answer that was not ok, each anchored at its start, so a status is read
 * only from them and never from text an agent wrote (`Agent failed: 403 tool calls exceeded the plan`):
 * `HTTP error for <method or path>! Status: 503 …`, `HTTP error establishing stream for <method>: 503 …`,
 * `HTTP error for <path>: 503 …` (REST) and `Failed to fetch Agent Card from <url>: 503`.
 */
const SDK_HTTP_FAILURES: readonly RegExp[] = [
  /^HTTP error for \S+! Status: ([1-5]\d\d)(?: |$)/,
  /^HTTP error establishing stream for \S+: ([1-5]\d\d)(?: |$)/,
  /^HTTP error for \S+: ([1-5]\d\d)(?: |$)/,
  /^Failed to fetch Agent Card from \S+: ([1-5]\d\d)$/,
];

/**
 * The HTTP status of an answer the recording fetch did not see (a client factory without `a2aFetch`), from
 * the SDK's message for it. An `A2AError` (a JSON-RPC error) comes with HTTP 200 or with an answer
 * `failedAnswer()` saw: its text is the agent's and never gives a status.
 */
function statusInSdkMessage(error: unknown): number | undefined {
  if (!(error instanceof Error) || error instanceof A2AError) return undefined;
  for (const format of SDK_HTTP_FAILURES) {
    const status = format.exec(error.message)?.[1];
    if (status !== undefined) return Number(status);
  }
  return undefined;
}

/**
 * Turns what the SDK threw into a typed skein error with a scrubbed copy of the original as `cause` (an
 * agent or a proxy may quote the credentials it was sent), mapped as every remote adapter maps its
 * service's failures: a `ServiceError` with the call, the status, the request id and the wait from the
 * answer's headers, retryable for 408, 429, 5xx and network failures, a credential error for 401 and 403.
 * Skein errors and aborts pass through unchanged, so a caller's `AbortSignal` still ends in its own reason.
 */
export function agentError(thrown: unknown, call: AgentCall): unknown {
  if (SkeinError.isInstance(thrown) || isAbort(thrown)) return thrown;
  const { agentUrl, taskId } = call;
  const error = redactedError(thrown);
  const message = error instanceof Error ? error.message : String(error);
  const answer = failedAnswer();
  const status = answer?.status ?? statusInSdkMessage(thrown);
  const headers = readServiceHeaders(answer?.headers);
  const options: AgentFailureOptions = {
    cause: error,
    failure: {
      operation: call.operation,
      status,
      requestId: headers.requestId,
      retryAfterMs: headers.retryAfterMs,
    },
  };
  if (status === 401 || status === 403) {
    const reason =
      error instanceof A2AError ? error.reason : status === 401 ? "UNAUTHENTICATED" : "PERMISSION_DENIED";
    return new A2aCredentialError(agentUrl, reason, message, options);
  }
  if (error instanceof A2AError) {
    if (error.reason === "TASK_NOT_FOUND" && taskId !== undefined) {
      return new A2aTaskNotFoundError(agentUrl, taskId, options);
    }
    return new A2aAgentError(agentUrl, error.reason, error.message, options);
  }
  if (isNetworkFailure(error)) {
    return new A2aAgentUnavailableError(agentUrl, describeNetworkFailure(error), {
      cause: error,
      failure: { ...options.failure, code: systemErrorCode(thrown) },
    });
  }
  if (status !== undefined && isRetryableStatus(status)) {
    return new A2aAgentUnavailableError(agentUrl, message, options);
  }
  return new A2aAgentError(agentUrl, "TRANSPORT_ERROR", message, options);
}

/**
 * Aborts pass through. The SDK and `fetch` raise them as DOMExceptions (or Errors) named `AbortError` and
 * `TimeoutError`; DOMException has no type guard of its own to ask instead, so the name is the check.
 */
function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** `fetch` rejects with a TypeError whose cause holds the socket error (`ECONNREFUSED`, …). */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch failed|terminated|socket/i.test(error.message);
}

function describeNetworkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  return detail ? `${message} (${detail})` : message;
}

import { A2AError } from "@a2a-js/sdk/errors";
import { redactedError, SkeinError } from "@skein/thread-core";
import { A2aAgentError, A2aAgentUnavailableError, A2aTaskNotFoundError } from "./errors.js";

/** HTTP answers that say "try again later" rather than "no". */
const UNAVAILABLE_STATUS = /\b(?:Status: |: )(?:429|502|503|504)\b/;

/**
 * Turns what the SDK threw into a typed skein error with a scrubbed copy of the original as `cause` (an
 * agent or a proxy may quote the credentials it was sent). Skein errors and aborts pass through unchanged,
 * so a caller's `AbortSignal` still ends in its own reason.
 */
export function agentError(thrown: unknown, agentUrl: string, taskId?: string): unknown {
  if (SkeinError.isInstance(thrown) || isAbort(thrown)) return thrown;
  const error = redactedError(thrown);
  if (error instanceof A2AError) {
    if (error.reason === "TASK_NOT_FOUND" && taskId !== undefined) {
      return new A2aTaskNotFoundError(agentUrl, taskId, { cause: error });
    }
    return new A2aAgentError(agentUrl, error.reason, error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (isNetworkFailure(error) || UNAVAILABLE_STATUS.test(message)) {
    return new A2aAgentUnavailableError(agentUrl, describeNetworkFailure(error), { cause: error });
  }
  return new A2aAgentError(agentUrl, "TRANSPORT_ERROR", message, { cause: error });
}

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

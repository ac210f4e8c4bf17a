import type { Message } from "@skein/thread-core";
import {
  ServiceCredentialError,
  ServiceError,
  ServiceUnavailableError,
  SkeinError,
  type SkeinErrorOptions,
  UnsupportedOperationError,
} from "@skein/thread-core";
import {
  isRetryableStatus,
  redactUrl,
  redactUrlText,
  type ServiceFailureDetails,
} from "@skein/thread-core/driver";
import type { A2aTaskState } from "./task-state.js";

export const SOURCE = "adapter-a2a";

type ErrorOptions = Omit<SkeinErrorOptions, "source">;

/** What the call to the agent was and what its answer said, as every remote adapter's errors carry. */
export interface AgentFailureOptions extends ErrorOptions {
  failure?: Partial<ServiceFailureDetails>;
}

/**
 * An agent URL as an error shows it (in its message and its `agentUrl` field, which `JSON.stringify` and
 * loggers print): the password masked, and the value of every credential-named query parameter
 * (`api_key`, `token`, …) masked. Text that is not a URL keeps no password and no query.
 */
export function displayAgentUrl(agentUrl: string): string {
  const url = URL.canParse(agentUrl) ? new URL(agentUrl) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    return redactUrlText(agentUrl.replace(/[?#][\s\S]*$/, ""));
  }
  const shown = redactUrl(url);
  // The URL as given when it holds nothing to mask (the WHATWG form may add a `/` the user did not write).
  return shown === url.href ? agentUrl : shown;
}

/** The call an error answers when the caller did not say. */
const UNNAMED_OPERATION = "agent call";

/*
 * The agent errors below quote what the agent (or a proxy before it) said, which may quote the credentials
 * the client factory sent: each scrubs its text of every remembered credential (`a2aAdapter({ secrets })`
 * remembers them) and of token-shaped text, whoever constructs it.
 */

/**
 * The remote agent answered with an A2A error. `reason` is the protocol's (`UNSUPPORTED_OPERATION`,
 * `INVALID_PARAMS`, …), or `TRANSPORT_ERROR` when the answer was not an A2A error at all. A `ServiceError`
 * (`code` is the reason), as the failures of every remote adapter are; retryable only for an HTTP status
 * that says so (408, 429, 5xx).
 */
export class A2aAgentError extends ServiceError {
  static override readonly marker: string = "skein.adapter-a2a.A2aAgentError";
  /** The agent's URL with its credentials masked. */
  readonly agentUrl: string;
  constructor(
    agentUrl: string,
    readonly reason: string,
    detail: string,
    { failure, ...options }: AgentFailureOptions = {},
  ) {
    const status = failure?.status;
    const shown = displayAgentUrl(agentUrl);
    super(
      `Agent ${shown} refused the request (${reason}): ${detail}`,
      {
        operation: UNNAMED_OPERATION,
        code: reason,
        ...failure,
        retryable: status !== undefined && isRetryableStatus(status),
      },
      { ...options, source: SOURCE },
    );
    this.agentUrl = shown;
  }
}

/**
 * The agent (or a gateway before it) refused the credentials the client factory sent (401, 403): fix them
 * in the factory's fetch or interceptors; retrying as is will not help. An `A2aAgentError` and a
 * `ServiceCredentialError`.
 */
export class A2aCredentialError extends A2aAgentError {
  static override readonly marker: string = "skein.adapter-a2a.A2aCredentialError";
  static override readonly alsoMarkers = [ServiceCredentialError.marker];
}

/** The agent does not know the task (it lost its task store, or the id is wrong). */
export class A2aTaskNotFoundError extends A2aAgentError {
  static override readonly marker: string = "skein.adapter-a2a.A2aTaskNotFoundError";
  constructor(
    agentUrl: string,
    readonly taskId: string,
    options?: AgentFailureOptions,
  ) {
    super(agentUrl, "TASK_NOT_FOUND", `it has no task ${JSON.stringify(taskId)}.`, options);
  }
}

/**
 * The agent could not be reached, or it (or a gateway before it) answered 408, 429 or 5xx; the call may be
 * retried, after `retryAfterMs` when the answer said. Thread-core's `ServiceUnavailableError` (so a
 * `StoreUnavailableError` and a `ServiceError`) with `source` "adapter-a2a", and the agent's URL.
 */
export class A2aAgentUnavailableError extends ServiceUnavailableError {
  static override readonly marker: string = "skein.adapter-a2a.A2aAgentUnavailableError";

  /** The agent's URL with its credentials masked. */
  readonly agentUrl: string;

  constructor(agentUrl: string, detail: string, { failure, ...options }: AgentFailureOptions = {}) {
    const shown = displayAgentUrl(agentUrl);
    super(
      `Agent ${shown} is unavailable: ${detail}`,
      { operation: UNNAMED_OPERATION, ...failure },
      { ...options, source: SOURCE },
    );
    this.agentUrl = shown;
  }
}

/** An agent URL that is not an `http:` or `https:` URL. */
export class A2aInvalidAgentUrlError extends SkeinError {
  static override readonly marker: string = "skein.adapter-a2a.A2aInvalidAgentUrlError";
  /** The URL given, with its credentials masked. */
  readonly agentUrl: string;
  constructor(agentUrl: string) {
    const shown = displayAgentUrl(agentUrl);
    super(
      `${JSON.stringify(shown)} is not an agent URL; expected http(s)://host/… where the agent card is served.`,
      { source: SOURCE },
    );
    this.agentUrl = shown;
  }
}

/** An `a2a` thread needs a client, which lives in the adapter, not in the thread's JSON. */
export class A2aAdapterMissingError extends SkeinError {
  static override readonly marker: string = "skein.adapter-a2a.A2aAdapterMissingError";
  constructor(readonly threadId: string) {
    super(
      `Thread ${JSON.stringify(threadId)} talks to an A2A agent but no a2a adapter was given: ` +
        "openStore(url, { adapters: [a2aAdapter({ clientFactory })] }).",
      { source: SOURCE },
    );
  }
}

/** `a2aRunner`: the agent's task failed. Its reply, already appended to the thread, is in `messages`. */
export class A2aTaskFailedError extends SkeinError {
  static override readonly marker: string = "skein.adapter-a2a.A2aTaskFailedError";
  /** The agent's URL with its credentials masked. */
  readonly agentUrl: string;
  constructor(
    agentUrl: string,
    readonly taskId: string,
    readonly state: A2aTaskState,
    readonly messages: Message[],
  ) {
    const shown = displayAgentUrl(agentUrl);
    super(`Agent ${shown} ended task ${JSON.stringify(taskId)} as ${state}.`, { source: SOURCE });
    this.agentUrl = shown;
  }
}

/** `skeinTaskStore` could not read or write a task in the skein store. */
export class A2aTaskStoreError extends SkeinError {
  static override readonly marker: string = "skein.adapter-a2a.A2aTaskStoreError";
  constructor(
    readonly taskId: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`Task ${JSON.stringify(taskId)}: ${detail}`, { ...options, source: SOURCE });
  }
}

/** `UnsupportedOperationError` raised by this package: the type cannot do it and nothing was changed. */
export function unsupported(type: string, capability: string, detail: string): UnsupportedOperationError {
  return new UnsupportedOperationError(type, capability, detail, { source: SOURCE });
}

import { SkeinError, type SkeinErrorOptions } from "@skein/thread-core";
import { redactedError, redactSecrets } from "@skein/thread-core/driver";

export { ThreadNotFoundError } from "@skein/thread-core";

const source = "thread-service";

function withSource(options?: SkeinErrorOptions): SkeinErrorOptions {
  return { ...options, source };
}

/** A thread's configuration is not valid; `issues` says where and why. Nothing was created. */
export class InvalidThreadConfigError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.InvalidThreadConfigError";
  constructor(
    readonly issues: readonly string[],
    options?: SkeinErrorOptions,
  ) {
    super(`Invalid thread configuration: ${issues.join("; ")}`, withSource(options));
  }
}

/** The thread was branched: it is read-only from then on and work goes to its branch. */
export class ThreadLockedError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.ThreadLockedError";
  constructor(
    readonly threadId: string,
    readonly branchId: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} is locked: it was branched into ${JSON.stringify(branchId)}; send to the branch.`,
      withSource(options),
    );
  }
}

/** The thread is paused; `resume` it before sending. */
export class ThreadPausedError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.ThreadPausedError";
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread ${JSON.stringify(threadId)} is paused; resume it before sending.`, withSource(options));
  }
}

/** The thread was killed: it takes no more messages and cannot be resumed or branched. */
export class ThreadKilledError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.ThreadKilledError";
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(`Thread ${JSON.stringify(threadId)} was killed; it takes no more work.`, withSource(options));
  }
}

/**
 * Processing a message failed: the runner threw, or one of the subclasses below says more. `detail` and
 * `cause` are often a runner's or a service's own error, which may quote a credential a client holds: both
 * are scrubbed of remembered secrets here, as this error reaches `send`'s caller and the `failed` event.
 */
export class ThreadProcessingError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.ThreadProcessingError";
  constructor(
    readonly threadId: string,
    readonly messageId: string,
    detail: string,
    options?: SkeinErrorOptions,
  ) {
    const scrubbed =
      options?.cause === undefined ? options : { ...options, cause: redactedError(options.cause) };
    super(
      `Processing message ${JSON.stringify(messageId)} of thread ${JSON.stringify(threadId)} failed: ${redactSecrets(detail)}`,
      withSource(scrubbed),
    );
  }
}

/** The run took longer than the thread's `maxTime`; it was aborted through its signal. */
export class ThreadTimeoutError extends ThreadProcessingError {
  static override readonly marker: string = "skein.thread-service.ThreadTimeoutError";
  constructor(
    threadId: string,
    messageId: string,
    readonly maxTime: number,
    options?: SkeinErrorOptions,
  ) {
    super(threadId, messageId, `it ran longer than maxTime (${maxTime} ms) and was aborted.`, options);
  }
}

/** One error of the JSON Schema validator, as ajv reports it. */
export interface OutputValidationIssue {
  /** JSON Pointer into the output (`/items/0/name`); empty for the whole value. */
  instancePath: string;
  /** The schema keyword that failed (`required`, `type`, …), or `json` when the output was not JSON. */
  keyword: string;
  message: string;
  params?: Record<string, unknown>;
}

/** The runner's final answer is not JSON, or does not match the thread's `outputSchema`. */
export class OutputValidationError extends ThreadProcessingError {
  static override readonly marker: string = "skein.thread-service.OutputValidationError";
  constructor(
    threadId: string,
    messageId: string,
    readonly errors: readonly OutputValidationIssue[],
    readonly output: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      threadId,
      messageId,
      `the output does not match the thread's outputSchema: ${errors
        .map((error) => `${error.instancePath || "(root)"} ${error.message}`)
        .join("; ")}`,
      options,
    );
  }
}

/**
 * Another service instance took the thread over because this one did not renew its lease in time (it
 * stalled or lost the store). The run was aborted; its messages up to then may be in the thread.
 */
export class LeaseLostError extends ThreadProcessingError {
  static override readonly marker: string = "skein.thread-service.LeaseLostError";
  constructor(threadId: string, messageId: string, options?: SkeinErrorOptions) {
    super(
      threadId,
      messageId,
      "this instance lost the thread's lease (it was not renewed in time) and stopped.",
      options,
    );
  }
}

/** The service was closed; it takes no more work. */
export class ServiceClosedError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.ServiceClosedError";
  constructor(options?: SkeinErrorOptions) {
    super("The thread service is closed.", withSource(options));
  }
}

/** The thread was not created by a thread service, so it has no configuration or status. */
export class NotAServiceThreadError extends SkeinError {
  static override readonly marker: string = "skein.thread-service.NotAServiceThreadError";
  constructor(
    readonly threadId: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread ${JSON.stringify(threadId)} was not created by a thread service; create it with createThread().`,
      withSource(options),
    );
  }
}

import { PointNotFoundError, quoteUntrusted, SkeinError, type SkeinErrorOptions } from "./errors.js";

/**
 * `edit`, `regenerate`, `alternatives` or `switchTo` named a message the thread does not have on its current
 * branch nor as a version of one of its messages. A `PointNotFoundError` too: a message id is a point.
 */
export class MessageNotFoundError extends PointNotFoundError {
  static override readonly marker: string = "skein.thread-core.MessageNotFoundError";
  constructor(
    threadId: string,
    readonly messageId: string,
    options?: SkeinErrorOptions,
  ) {
    super(threadId, messageId, options);
    this.message = `[${this.source}] Thread ${quoteUntrusted(threadId)} has no message ${quoteUntrusted(messageId)} on its current branch, nor as a version of one of its messages; nothing was written. Read thread.messages() for the ids it has.`;
  }
}

/**
 * The message is in the thread's history, but not on the current branch nor a version of a message on it:
 * it lies further along another branch. Nothing was written. Switch to that branch first.
 */
export class MessageOffBranchError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.MessageOffBranchError";
  constructor(
    readonly threadId: string,
    readonly messageId: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Message ${quoteUntrusted(messageId)} of thread ${quoteUntrusted(threadId)} is not on the current branch; nothing was written. Make its branch current first (thread.alternatives(id) lists the versions of a message on the current branch, thread.switchTo(version) enters one), then retry.`,
      options,
    );
  }
}

/** `regenerate` was given a message that is not an assistant's answer; nothing was written. */
export class NotAnAnswerError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.NotAnAnswerError";
  constructor(
    readonly threadId: string,
    readonly messageId: string,
    readonly role: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Message ${quoteUntrusted(messageId)} of thread ${quoteUntrusted(threadId)} is a ${role} message, and regenerate replaces an assistant's answer; nothing was written. Use thread.edit(id, replacement) to change a ${role} message.`,
      options,
    );
  }
}

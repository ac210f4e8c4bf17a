import { SkeinError, type SkeinErrorOptions } from "@skein/thread-core";

export const SOURCE = "ai-sdk";

type ErrorOptions = Omit<SkeinErrorOptions, "source">;

/** A UI or model message this package cannot map: `path` points at the offending value. Nothing was written. */
export class MessageMappingError extends SkeinError {
  static override readonly marker: string = "skein.ai-sdk.MessageMappingError";
  constructor(
    readonly detail: string,
    readonly path: ReadonlyArray<string | number> = [],
    options?: ErrorOptions,
  ) {
    super(`Cannot map the message${path.length ? ` at ${path.join(".")}` : ""}: ${detail}`, {
      ...options,
      source: SOURCE,
    });
  }
}

/**
 * The messages given to `saveChat` cannot be placed in the thread: they start with a message the thread does
 * not hold while later ones are in it. Nothing was written.
 */
export class ChatMismatchError extends SkeinError {
  static override readonly marker: string = "skein.ai-sdk.ChatMismatchError";
  constructor(
    readonly threadId: string,
    readonly messageId: string,
    options?: ErrorOptions,
  ) {
    super(
      `The messages to save start with ${JSON.stringify(messageId)}, which thread ${JSON.stringify(threadId)} does not hold, but later ones are in it; nothing was written. Save the chat from one of its stored messages on, or only new messages.`,
      { ...options, source: SOURCE },
    );
  }
}

/**
 * A function of this package was called with an argument it cannot use (`argument` names it, `expected` says
 * what it takes, `received` what it got). Raised before anything is read or written, so a forgotten `await` or
 * a swapped argument fails at the call, not halfway through a streamed reply.
 */
export class ChatArgumentError extends SkeinError {
  static override readonly marker: string = "skein.ai-sdk.ChatArgumentError";
  constructor(
    readonly call: string,
    readonly argument: string,
    readonly expected: string,
    readonly received: string,
    options?: ErrorOptions,
  ) {
    super(`${call} needs ${argument} to be ${expected}, not ${received}; nothing was written.`, {
      ...options,
      source: SOURCE,
    });
  }
}

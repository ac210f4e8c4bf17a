import { ConflictError, quoteUntrusted, type SkeinErrorOptions } from "../errors.js";

/**
 * A write, `end` or `fail` on a reply that has ended: ended by its writer already, or ended `interrupted` by a
 * reader after the writer's lease lapsed. Nothing was written. A `ConflictError` too.
 */
export class ReplyEndedError extends ConflictError {
  static override readonly marker: string = "skein.thread-core.ReplyEndedError";
  constructor(
    readonly threadId: string,
    messageId: string,
    readonly reason: "ended" | "lease-lapsed",
    options?: SkeinErrorOptions,
  ) {
    super(
      reason === "ended"
        ? `Reply ${quoteUntrusted(messageId)} of thread ${quoteUntrusted(threadId)} has ended; nothing was written. Begin a new message to write more.`
        : `Reply ${quoteUntrusted(messageId)} of thread ${quoteUntrusted(threadId)} lost its lease (the writer stalled longer than leaseMs) and was ended "interrupted" with what had been flushed; nothing more was written. Begin a new message, or give beginMessage a longer leaseMs.`,
      messageId,
      options,
    );
  }
}

/**
 * `beginMessage` while another message of the thread streams, without `{ concurrent: true }`. Nothing was
 * written. A `ConflictError` too.
 */
export class StreamInProgressError extends ConflictError {
  static override readonly marker: string = "skein.thread-core.StreamInProgressError";
  constructor(
    readonly threadId: string,
    readonly streamingId: string,
    options?: SkeinErrorOptions,
  ) {
    super(
      `Thread ${quoteUntrusted(threadId)} has a message streaming (${quoteUntrusted(streamingId)}); nothing was written. End it first, or pass { concurrent: true } to stream several at once.`,
      streamingId,
      options,
    );
  }
}

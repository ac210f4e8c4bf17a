// Replies streamed into a thread as they are made (`thread.beginMessage`, `thread.follow`): only types; the
// engine is in ../streaming.
import type { Content, Message, Role } from "./message.js";

/**
 * A message's `status` field: `"streaming"` while its writer still writes it (only `messages()` shows such a
 * message), `"interrupted"` when it ended before it was complete (`fail`, or its writer's lease lapsed). A
 * message that ended normally has no status.
 */
export type MessageStatus = "streaming" | "interrupted";

/** Options of `thread.beginMessage`. */
export interface BeginMessageOptions {
  role: Role;
  /** The message's id. @default a new sortable id */
  id?: string;
  /** The message's `authorName`. */
  author?: string;
  /** Start even while another message of the thread streams. @default false: refused with `StreamInProgressError` */
  concurrent?: boolean;
  /** How long deltas wait to be written together. @default 50 */
  flushMs?: number;
  /** Buffered deltas of this many bytes (as JSON) are written at once, without waiting `flushMs`. @default 16384 */
  maxBatchBytes?: number;
  /**
   * How long the writer's lease lasts; the writer renews it while the reply is open. A reply whose lease lapsed
   * ends `interrupted` the next time anyone reads or writes the thread. Readers compare it with their own clock.
   * @default 30000
   */
  leaseMs?: number;
}

/** A delta of a streamed reply: a content part of the kinds `append` takes, or a string (text). */
export type ReplyDelta = Content | string;

/** The writing end of a streamed message, from `thread.beginMessage`. */
export interface StreamingReply {
  /** The message's id. */
  readonly id: string;
  /** Adds a delta; resolves once it is buffered (or written, when the buffer reached `maxBatchBytes`). */
  write(delta: ReplyDelta): Promise<void>;
  /**
   * Writes what is buffered and makes the message an ordinary message of the thread; resolves to it. Its
   * contents are the deltas joined, or `final.contents` when the writer knows the finished form better (a
   * mapping that keeps more than the deltas carry); `final.metadata` becomes the message's `metadata`.
   */
  end(final?: { contents?: Content[]; metadata?: Message["metadata"] }): Promise<Message>;
  /**
   * Writes what is buffered and ends the message `interrupted`, with an `error` content saying why after the
   * deltas joined (or after `final.contents`, as for `end`).
   */
  fail(error: unknown, final?: { contents?: Content[]; metadata?: Message["metadata"] }): Promise<Message>;
  /** Deltas written so far (buffered ones included). */
  readonly written: number;
}

/** Options of `thread.follow`. */
export interface FollowOptions {
  /** The first delta to give (how many the reader already has). @default 0 */
  from?: number;
  /** Stops following; the iteration then ends with the signal's reason. */
  signal?: AbortSignal;
  /** How often the store is read when no wake-up comes (bounded to 5…1000). @default 50 */
  pollMs?: number;
}

/**
 * What `thread.follow` gives: each delta with its offset while the message streams, then once the whole
 * message as it ended (ordinary, or `status: "interrupted"`). A message that had ended gives only `end`.
 * A reader that the reply's landing overtook (its last batches written and reclaimed before it read them)
 * gets the rest as the fewest deltas that complete the message (text runs joined, offsets counting those),
 * then `end`; or only `end` when the writer ended with contents of its own, or `from` was beyond what it read.
 */
export type FollowEvent =
  | { type: "delta"; offset: number; delta: Content }
  | { type: "end"; message: Message };

import type { LogDriver, SegmentInfo } from "../spec/log-driver.js";
import type { Content, Message } from "../spec/message.js";
import type { StreamEntry } from "./stream-entries.js";

/** What a reply's writer needs of the thread it writes into (`ThreadStreams` gives it). */
export interface StreamAccess {
  readonly threadId: string;
  readonly driver: LogDriver;
  /** The thread's owner: a store with per-owner keys seals the reply's batches with their key. */
  readonly owner: string | undefined;
  /** The segment that holds the reply's batches, as `importSegment` takes it. */
  segmentInfo(entry: StreamEntry): SegmentInfo;
  /**
   * Writes the finished message into the log and drops the reply's entry, in one commit; undefined when the
   * entry is gone (a reader ended it `interrupted` after its lease lapsed). With `batched` (a batch was
   * written), the reply's segment is reclaimed once the message landed.
   */
  landReply(
    entry: StreamEntry,
    contents: Content[],
    status: "interrupted" | undefined,
    metadata: Message["metadata"] | undefined,
    batched: boolean,
  ): Promise<Message | undefined>;
  /** Reclaims the reply's segment of batches (the message is in the log, or nothing will land it). */
  dropBatches(entry: StreamEntry): Promise<void>;
  /** Whether the thread still has the reply's entry (false: a reader ended it after its lease lapsed). */
  holds(entry: StreamEntry): Promise<boolean>;
}

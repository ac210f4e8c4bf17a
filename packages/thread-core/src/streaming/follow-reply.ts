import { MessageNotFoundError } from "../branch-errors.js";
import { InvalidOptionError } from "../errors.js";
import { describeGiven, objectArgument } from "../option-value.js";
import { checkMessageId } from "../read-options.js";
import type { LogRecord } from "../spec/log-driver.js";
import type { Content, Message } from "../spec/message.js";
import type { FollowEvent, FollowOptions } from "../spec/streaming.js";
import { ALL_BATCHES, joinDelta, landedRest } from "./stream-deltas.js";
import { streamsOf } from "./stream-entries.js";
import { FollowerWakeups, MAX_POLL_MS, MIN_POLL_MS } from "./stream-wakeups.js";
import type { ThreadStreams } from "./thread-streams.js";

/** What following a reply needs of its thread. */
export interface FollowHost {
  readonly streams: ThreadStreams;
  /** Reads the record again, ending replies whose lease lapsed. */
  refresh(): Promise<LogRecord>;
  /** The message with this id on the thread's current branch, or undefined. */
  messageInLog(id: string): Promise<Message | undefined>;
}

/**
 * The deltas of message `messageId` from offset `from`, as they are flushed, then the whole message once it
 * ended; only the whole message when it had ended already. It reads the reply's segment, and the record
 * only when the segment has nothing new; between reads it waits for a wake-up or `pollMs`. Pull-based: a
 * reader that stops reading leaves nothing buffered and never slows the writer.
 */
export async function* followReply(
  host: FollowHost,
  messageId: string,
  options: FollowOptions = {},
): AsyncGenerator<FollowEvent> {
  checkMessageId("thread.follow", "messageId", messageId);
  const { from, pollMs, signal } = checkFollowOptions(options);
  signal?.throwIfAborted();
  const threadId = host.streams.threadId;
  const source = { source: host.streams.driver.source };
  const ended = async (): Promise<FollowEvent> => {
    const message = await host.messageInLog(messageId);
    if (!message) throw new MessageNotFoundError(threadId, messageId, source);
    return { type: "end", message };
  };
  const entry = streamsOf((await host.refresh()).context).find((stream) => stream.id === messageId);
  if (!entry) {
    yield await ended();
    return;
  }
  const wakeups = new FollowerWakeups(entry.segment, host.streams.driver, pollMs, signal);
  try {
    let batch = 0;
    let offset = 0;
    // What was read, merged: the landed message completes it when the landing overtook this reader.
    const joined: Content[] = [];
    for (;;) {
      signal?.throwIfAborted();
      const batches = await host.streams.driver.readSegment(entry.segment, batch, ALL_BATCHES);
      for (const stored of batches) {
        for (const delta of stored.contents) {
          joinDelta(joined, delta);
          if (offset >= from) yield { type: "delta", offset, delta };
          offset++;
        }
        batch++;
      }
      if (batches.length > 0) continue;
      // Nothing new in the segment: has the reply ended (or lapsed, which this read ends)?
      const record = await host.refresh();
      if (
        !streamsOf(record.context).some((stream) => stream.id === messageId && stream.writer === entry.writer)
      ) {
        const end = await ended();
        // Its last batches may have been written and reclaimed since the segment was read (a store lands a
        // reply and drops its batches in one step): the reader gets them from the message, unless it holds
        // deltas this follow did not read (`from` beyond them) or the writer ended with contents of its own.
        const rest = offset >= from && end.type === "end" ? landedRest(joined, end.message) : undefined;
        for (const delta of rest ?? []) yield { type: "delta", offset: offset++, delta };
        yield end;
        return;
      }
      await wakeups.wait();
    }
  } finally {
    await wakeups.close();
  }
}

function checkFollowOptions(options: FollowOptions) {
  const given = objectArgument("thread.follow", "options", options, "{ from: 0, signal }");
  const from = given.from ?? 0;
  if (!Number.isSafeInteger(from) || from < 0) {
    throw new InvalidOptionError("thread.follow", "from", "a whole number of 0 or more", describeGiven(from));
  }
  const poll = given.pollMs ?? 50;
  if (typeof poll !== "number" || Number.isNaN(poll)) {
    throw new InvalidOptionError("thread.follow", "pollMs", "a number of milliseconds", describeGiven(poll));
  }
  if (given.signal !== undefined && !(given.signal instanceof AbortSignal)) {
    throw new InvalidOptionError("thread.follow", "signal", "an AbortSignal", describeGiven(given.signal));
  }
  return { from, pollMs: Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, poll)), signal: given.signal };
}

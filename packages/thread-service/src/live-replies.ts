import type { ReplyEvent } from "./event-stream.js";

/**
 * The replies streaming in this instance's runs, each with the events emitted for it so far, so an events
 * client that joins late is given the deltas it missed and then the live ones, with no gap and no repeat:
 * the events already emitted and the subscription are taken in one synchronous step. A reply leaves the
 * registry in the same step that emits its `reply-ended` event.
 */
export class LiveReplies {
  readonly #replies = new Map<string, ReplyEvent[]>();

  /** Records an event of a reply that streams; `reply-ended` forgets the reply. */
  note(event: ReplyEvent): void {
    const key = replyKey(event.threadId, event.replyId);
    if (event.type === "reply-ended") {
      this.#replies.delete(key);
      return;
    }
    const events = this.#replies.get(key) ?? [];
    events.push(event);
    this.#replies.set(key, events);
  }

  /** Forgets a reply that could not be ended here (its store unreachable): its lease ends it in the store. */
  forget(threadId: string, replyId: string): void {
    this.#replies.delete(replyKey(threadId, replyId));
  }

  /** The delta events of a reply streaming here from `offset` on; undefined when it does not stream here. */
  deltasFrom(threadId: string, replyId: string, offset: number): ReplyEvent[] | undefined {
    const events = this.#replies.get(replyKey(threadId, replyId));
    if (!events) return undefined;
    return events.filter((event) => event.type === "delta" && event.offset >= offset);
  }
}

function replyKey(threadId: string, replyId: string): string {
  return JSON.stringify([threadId, replyId]);
}

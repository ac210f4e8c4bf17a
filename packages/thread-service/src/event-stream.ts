import type { Content, JsonValue, Message, Role, SkeinError } from "@skein/thread-core";
import type { ThreadStatus } from "./thread-status.js";

/**
 * An event of a reply that a run streams into its thread (`RunOptions.beginMessage`). `messageId` is the
 * message being processed; it is absent on the events a late client is given from the store
 * (`events(threadId, { from })` for a reply that does not stream in this instance).
 */
export type ReplyEvent =
  | { type: "reply-started"; threadId: string; messageId?: string; replyId: string; role: Role; at: string }
  | {
      type: "delta";
      threadId: string;
      messageId?: string;
      replyId: string;
      /** The delta's place in the reply, from 0: what `events(threadId, { from })` and `thread.follow` take. */
      offset: number;
      delta: Content;
      at: string;
    }
  | {
      type: "reply-ended";
      threadId: string;
      messageId?: string;
      replyId: string;
      /** The reply as it landed in the thread: `status: "interrupted"` when it did not end normally. */
      message: Message;
      at: string;
    };

/** An event of the service's stream: a status change, a message completed, a failure, or a streamed reply's. */
export type ServiceEvent =
  | ReplyEvent
  | { type: "status"; threadId: string; status: ThreadStatus; at: string }
  | {
      type: "completed";
      threadId: string;
      /** The id of the message that was processed. */
      messageId: string;
      /** What the runner appended. */
      messages: Message[];
      /** The parsed, validated answer, for threads with an `outputSchema`. */
      output?: JsonValue;
      at: string;
    }
  | { type: "failed"; threadId: string; messageId: string; error: SkeinError; at: string };

interface Subscriber {
  threadId?: string;
  buffer: ServiceEvent[];
  wake?: () => void;
  done: boolean;
}

/** Fans events out to every open iterator; each iterator buffers what it has not read yet. */
export class EventStream {
  readonly #subscribers = new Set<Subscriber>();
  #closed = false;

  emit(event: ServiceEvent): void {
    for (const subscriber of this.#subscribers) {
      if (subscriber.threadId !== undefined && subscriber.threadId !== event.threadId) continue;
      subscriber.buffer.push(event);
      subscriber.wake?.();
    }
  }

  /** Whether any iterator would receive an event of this thread: events nobody reads are not worth a read. */
  wants(threadId: string): boolean {
    for (const subscriber of this.#subscribers) {
      if (subscriber.threadId === undefined || subscriber.threadId === threadId) return true;
    }
    return false;
  }

  /**
   * The events from now on, of one thread or all, after `earlier` (events already emitted, given first); the
   * iterator ends on `signal`, `break` or `close()`.
   */
  subscribe(
    threadId?: string,
    signal?: AbortSignal,
    earlier: readonly ServiceEvent[] = [],
  ): AsyncIterableIterator<ServiceEvent> {
    const subscriber: Subscriber = {
      threadId,
      buffer: [...earlier],
      done: this.#closed || Boolean(signal?.aborted),
    };
    // Aborting or breaking ends the iterator at once; only `close()` lets it read what is buffered first.
    const end = () => {
      subscriber.done = true;
      subscriber.buffer.length = 0;
      this.#subscribers.delete(subscriber);
      subscriber.wake?.();
    };
    if (!subscriber.done) this.#subscribers.add(subscriber);
    signal?.addEventListener("abort", end, { once: true });
    const iterator: AsyncIterableIterator<ServiceEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (subscriber.buffer.length === 0 && !subscriber.done) {
          await new Promise<void>((resolve) => {
            subscriber.wake = resolve;
          });
          subscriber.wake = undefined;
        }
        const event = subscriber.buffer.shift();
        if (event) return { value: event, done: false };
        signal?.removeEventListener("abort", end);
        return { value: undefined, done: true };
      },
      return: async () => {
        end();
        signal?.removeEventListener("abort", end);
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  /** Ends every iterator once it has read what was already emitted. */
  close(): void {
    this.#closed = true;
    for (const subscriber of [...this.#subscribers]) {
      subscriber.done = true;
      this.#subscribers.delete(subscriber);
      subscriber.wake?.();
    }
  }
}

import {
  InvalidOptionError,
  type Thread,
  type ThreadStore,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { type FollowEvent, type FollowOptions, runTarget } from "@skein/thread-core/driver";
import type { EventStream, ServiceEvent } from "./event-stream.js";
import type { LiveReplies } from "./live-replies.js";

/** Options of `service.events`. */
export interface ServiceEventsOptions {
  /** Ends the iterator at once. */
  signal?: AbortSignal;
  /**
   * Start with the deltas of reply `replyId` from `offset` (how many the client already has), then go on live:
   * a client that lost its connection resumes where it stopped. Needs a `threadId`.
   */
  from?: { replyId: string; offset?: number };
}

/** A thread whose replies can be followed (local threads of every store: `LogThread`). */
interface FollowableThread extends Thread {
  follow(messageId: string, options?: FollowOptions): AsyncIterable<FollowEvent>;
}

/**
 * The service's events of one thread or all; with `from`, first the deltas of that reply from its offset.
 * A reply that streams in this instance is replayed from memory in the step that subscribes, so nothing is
 * missed or repeated; any other (streaming in another instance, or ended) is followed in the store
 * (`thread.follow`), live while it streams, and the live events follow once it has ended.
 */
export function serviceEvents(
  parts: { store: ThreadStore; events: EventStream; live: LiveReplies },
  threadId: string | undefined,
  options: ServiceEventsOptions,
): AsyncIterableIterator<ServiceEvent> {
  const { signal, from } = options;
  if (from === undefined) return parts.events.subscribe(threadId, signal);
  const method = "service.events";
  if (threadId === undefined) {
    throw new InvalidOptionError(method, "threadId", "the id of the reply's thread, with from", "undefined");
  }
  if (typeof from !== "object" || from === null || typeof from.replyId !== "string") {
    throw new InvalidOptionError(method, "from", "{ replyId, offset }", typeof from);
  }
  const offset = from.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new InvalidOptionError(method, "from.offset", "a whole number of 0 or more", String(offset));
  }
  const replayed = parts.live.deltasFrom(threadId, from.replyId, offset);
  if (replayed) return parts.events.subscribe(threadId, signal, replayed);
  const live = parts.events.subscribe(threadId, signal);
  return new ResumedEvents(followed(parts.store, threadId, from.replyId, offset, signal), live, signal);
}

/** The reply's deltas from `offset` as the store holds them, live while it streams, then its end. */
async function* followed(
  store: ThreadStore,
  threadId: string,
  replyId: string,
  offset: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<ServiceEvent> {
  const target = runTarget(await store.get(threadId)) as Partial<FollowableThread> | undefined;
  if (typeof target?.follow !== "function") {
    throw new UnsupportedOperationError(
      target?.type ?? "unknown",
      "following a streamed reply",
      "only threads whose log skein keeps stream replies; read its messages instead.",
      { source: "thread-service" },
    );
  }
  const follow = (target as FollowableThread).follow(replyId, {
    from: offset,
    ...(signal ? { signal } : {}),
  });
  for await (const event of follow) {
    const at = new Date().toISOString();
    if (event.type === "delta") {
      yield { type: "delta", threadId, replyId, offset: event.offset, delta: event.delta, at };
    } else {
      yield { type: "reply-ended", threadId, replyId, message: event.message, at };
    }
  }
}

/** The events of `first` (a followed reply), then those of `live`, subscribed before `first` began. */
class ResumedEvents implements AsyncIterableIterator<ServiceEvent> {
  #first: AsyncGenerator<ServiceEvent> | undefined;
  readonly #live: AsyncIterableIterator<ServiceEvent>;
  readonly #signal: AbortSignal | undefined;

  constructor(
    first: AsyncGenerator<ServiceEvent>,
    live: AsyncIterableIterator<ServiceEvent>,
    signal: AbortSignal | undefined,
  ) {
    this.#first = first;
    this.#live = live;
    this.#signal = signal;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ServiceEvent> {
    return this;
  }

  async next(): Promise<IteratorResult<ServiceEvent>> {
    const first = this.#first;
    if (first) {
      let result: IteratorResult<ServiceEvent>;
      try {
        result = await first.next();
      } catch (error) {
        // An abort ends the iterator quietly, as it ends the live events; anything else is the caller's to see.
        await this.return();
        if (this.#signal?.aborted) return { value: undefined, done: true };
        throw error;
      }
      if (!result.done) return result;
      this.#first = undefined;
    }
    return this.#live.next();
  }

  async return(): Promise<IteratorResult<ServiceEvent>> {
    const first = this.#first;
    this.#first = undefined;
    await first?.return(undefined);
    await this.#live.return?.();
    return { value: undefined, done: true };
  }
}

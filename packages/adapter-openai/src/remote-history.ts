import { type Message, PointNotFoundError, type ReadOptions } from "@skein/thread-core";
import { SOURCE } from "./errors.js";

/**
 * A thread's messages as the service pages them: from either end, a page at a time, so that reading the
 * last k messages costs requests for k messages, not for the whole thread.
 */
export interface RemoteHistory {
  readonly threadId: string;
  /** Newest first. `pageSize` is a hint for the first request. */
  newestFirst(pageSize: number): AsyncIterable<Message>;
  /** Oldest first, after the message `after` (`PointNotFoundError` when it is not in the thread). */
  oldestFirst(pageSize: number, after?: string): AsyncIterable<Message>;
  /** Whether a message is in the thread, when the service can say so in one request. */
  contains?(id: string): Promise<boolean>;
}

/** The largest page the service serves. */
export const MAX_PAGE = 100;

/** `thread.messages(options)` over a remote history, with `Thread`'s meaning of `last`, `after` and `limit`. */
export async function readMessages(history: RemoteHistory, options: ReadOptions = {}): Promise<Message[]> {
  const limit = options.limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, options.limit);
  if (options.last !== undefined)
    return (await readLast(history, options.last, options.after)).slice(0, limit);
  const result: Message[] = [];
  if (limit === 0) return result;
  for await (const message of history.oldestFirst(pageFor(limit), options.after)) {
    result.push(message);
    if (result.length >= limit) break;
  }
  return result;
}

async function readLast(
  history: RemoteHistory,
  count: number,
  after: string | undefined,
): Promise<Message[]> {
  const last = Math.max(0, count);
  const newest: Message[] = [];
  const pages = history.newestFirst(pageFor(after === undefined ? last : last + 1))[Symbol.asyncIterator]();
  let found = after === undefined;
  try {
    while (!found) {
      const next = await pages.next();
      if (next.done) break;
      if (next.value.id === after) found = true;
      else if (newest.length < last) newest.push(next.value);
      // Enough messages, but a cursor older than them must still exist: ask, or read on to it.
      else if (history.contains) {
        found = await history.contains(after as string);
        break;
      }
    }
    if (after === undefined) {
      while (newest.length < last) {
        const next = await pages.next();
        if (next.done) break;
        newest.push(next.value);
      }
    }
  } finally {
    await pages.return?.();
  }
  if (!found) throw new PointNotFoundError(history.threadId, after as string, { source: SOURCE });
  return newest.reverse();
}

function pageFor(wanted: number): number {
  return Number.isFinite(wanted) ? Math.min(MAX_PAGE, Math.max(1, wanted)) : MAX_PAGE;
}

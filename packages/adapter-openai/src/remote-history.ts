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
  /**
   * Newest first, the messages older than `before` (`PointNotFoundError` when it is not in the thread), when
   * the service can start there (its id as a cursor); else `before` is found by reading back from the end.
   */
  olderThan?(before: string, pageSize: number): AsyncIterable<Message>;
}

/** The largest page the service serves. */
export const MAX_PAGE = 100;

/**
 * `thread.messages(options)` over a remote history, with `Thread`'s meaning of `last`, `after`, `before` and
 * `limit`.
 */
export async function readMessages(history: RemoteHistory, options: ReadOptions = {}): Promise<Message[]> {
  if (options.before !== undefined) return readBefore(history, options.before, options);
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

/**
 * The messages before `before` (and after `after`, when given), oldest first, then `last` and `limit` as
 * local threads apply them. Without `after` it keeps only the `min(last, limit)` it returns, so
 * `{ before, limit }` pages backwards; where the service cannot start at `before`, the messages after it
 * are read too (newest first) to find it.
 */
async function readBefore(history: RemoteHistory, before: string, options: ReadOptions): Promise<Message[]> {
  const { after } = options;
  const last = options.last === undefined ? undefined : Math.max(0, options.last);
  const limit = options.limit === undefined ? undefined : Math.max(0, options.limit);
  const wanted =
    after === undefined
      ? Math.min(last ?? Number.POSITIVE_INFINITY, limit ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  let afterIsLater = false;
  const older = history.olderThan
    ? history.olderThan(before, pageFor(wanted))
    : olderByReadingBack(history, before, (message) => {
        if (message.id === after) afterIsLater = true;
      });
  const kept: Message[] = [];
  let reachedAfter = false;
  // Reading starts even when nothing is wanted: it is what finds `before` (or says it is not there).
  for await (const message of older) {
    if (afterIsLater || kept.length >= wanted) break;
    if (message.id === after) {
      reachedAfter = true;
      break;
    }
    kept.push(message);
    if (kept.length >= wanted) break;
  }
  if (after !== undefined && !reachedAfter) {
    // Not met going back from `before`: it is `before` itself or later (nothing lies between), or unknown.
    const held = afterIsLater || (history.olderThan !== undefined && (await history.contains?.(after)));
    if (!held) throw new PointNotFoundError(history.threadId, after, { source: SOURCE });
    return [];
  }
  let window = kept.reverse();
  if (last !== undefined) window = window.slice(Math.max(0, window.length - last));
  if (limit === undefined) return window;
  return after === undefined ? window.slice(Math.max(0, window.length - limit)) : window.slice(0, limit);
}

/** Newest first, the messages older than `before`, found by reading back from the end; `later` sees the rest. */
async function* olderByReadingBack(
  history: RemoteHistory,
  before: string,
  later: (message: Message) => void,
): AsyncIterable<Message> {
  let found = false;
  for await (const message of history.newestFirst(MAX_PAGE)) {
    if (found) {
      yield message;
      continue;
    }
    later(message);
    found = message.id === before;
  }
  if (!found) throw new PointNotFoundError(history.threadId, before, { source: SOURCE });
}

function pageFor(wanted: number): number {
  return Number.isFinite(wanted) ? Math.min(MAX_PAGE, Math.max(1, wanted)) : MAX_PAGE;
}

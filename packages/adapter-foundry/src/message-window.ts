import type { Message, ReadOptions } from "@skein/thread-core";

/** The most a page of either service's list calls holds. */
export const PAGE_SIZE = 100;

export interface PageRequest {
  order: "asc" | "desc";
  /** The id of the last message of the previous page (in `order`); absent for the first page. */
  after?: string | undefined;
  limit: number;
}

export interface MessagePage {
  messages: Message[];
  hasMore: boolean;
}

/** A remote thread's messages, one page a request. Each remote item is one message, so ids are cursors. */
export interface PagedMessages {
  readPage(request: PageRequest): Promise<MessagePage>;
  /** Resolves if the thread holds a message with this id; else throws `PointNotFoundError`. */
  assertPoint(messageId: string): Promise<void>;
}

/**
 * `messages({ last, after, before, limit })` over a paged remote list, with the local threads' meaning:
 * `last` reads newest first and stops after k messages (O(k) requests' worth, not the thread's length);
 * `before` reads newest first from that message back (its id is the cursor), so `{ before, limit }` pages
 * backwards; the rest reads oldest first. An id the thread does not hold is a `PointNotFoundError`.
 */
export async function readWindow(source: PagedMessages, options: ReadOptions = {}): Promise<Message[]> {
  const last = count(options.last);
  const limit = count(options.limit);
  if (options.after !== undefined) await source.assertPoint(options.after);
  if (options.before !== undefined) return readBefore(source, options.before, options.after, last, limit);
  if (last === undefined) {
    const messages: Message[] = [];
    for await (const page of pagesOf(source, { after: options.after, pageLimit: limit }))
      messages.push(...page);
    return messages;
  }
  const newest = await readNewest(source, last, options.after);
  const chosen = newest.reverse();
  return limit === undefined ? chosen : chosen.slice(0, limit);
}

/**
 * Pages oldest first, from after `after`, until the end or `pageLimit` messages in all. Fork copies a thread
 * through this, so a long thread is never held whole.
 */
export async function* pagesOf(
  source: PagedMessages,
  options: { after?: string | undefined; pageLimit?: number | undefined } = {},
): AsyncGenerator<Message[]> {
  const wanted = options.pageLimit ?? Number.POSITIVE_INFINITY;
  let cursor = options.after;
  let read = 0;
  while (read < wanted) {
    const page = await source.readPage({
      order: "asc",
      after: cursor,
      limit: Math.min(PAGE_SIZE, wanted - read),
    });
    const messages = page.messages.slice(0, wanted - read);
    read += messages.length;
    if (messages.length > 0) yield messages;
    const lastMessage = page.messages.at(-1);
    if (!page.hasMore || !lastMessage) return;
    cursor = lastMessage.id;
  }
}

/** Every message, oldest first; for views and copies, which need the whole thread. */
export async function readAll(source: PagedMessages): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const page of pagesOf(source)) messages.push(...page);
  return messages;
}

async function readNewest(
  source: PagedMessages,
  last: number,
  stopAt: string | undefined,
): Promise<Message[]> {
  const newest: Message[] = [];
  let cursor: string | undefined;
  while (newest.length < last) {
    const page = await source.readPage({
      order: "desc",
      after: cursor,
      limit: Math.min(PAGE_SIZE, last - newest.length),
    });
    for (const message of page.messages) {
      if (message.id === stopAt || newest.length === last) return newest;
      newest.push(message);
    }
    const lastMessage = page.messages.at(-1);
    if (!page.hasMore || !lastMessage) break;
    cursor = lastMessage.id;
  }
  return newest;
}

/**
 * The messages before `before` (and after `after`, when given), oldest first, then `last` and `limit` as
 * local threads apply them. Without `after` it reads only the `min(last, limit)` messages it keeps.
 */
async function readBefore(
  source: PagedMessages,
  before: string,
  after: string | undefined,
  last: number | undefined,
  limit: number | undefined,
): Promise<Message[]> {
  await source.assertPoint(before);
  if (after === before) return [];
  const wanted = after === undefined ? Math.min(last ?? Infinity, limit ?? Infinity) : Infinity;
  const older: Message[] = [];
  let cursor = before;
  let reachedAfter = false;
  while (older.length < wanted && !reachedAfter) {
    const page = await source.readPage({
      order: "desc",
      after: cursor,
      limit: Math.min(PAGE_SIZE, wanted - older.length),
    });
    for (const message of page.messages) {
      if (message.id === after) reachedAfter = true;
      if (reachedAfter || older.length === wanted) break;
      older.push(message);
    }
    const lastMessage = page.messages.at(-1);
    if (!page.hasMore || !lastMessage) break;
    cursor = lastMessage.id;
  }
  // `after` exists (checked first); not met going back from `before`, it comes later: nothing lies between.
  if (after !== undefined && !reachedAfter) return [];
  let window = older.reverse();
  if (last !== undefined) window = window.slice(Math.max(0, window.length - last));
  if (limit === undefined) return window;
  return after === undefined ? window.slice(Math.max(0, window.length - limit)) : window.slice(0, limit);
}

function count(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.max(0, Math.floor(value));
}

import { type Message, PointNotFoundError, type ReadOptions } from "@skein/thread-core";
import type { ConversationEntry } from "./a2a-thread-state.js";
import { SOURCE } from "./errors.js";

/** Reads one entry's messages: a task from the agent, or messages kept in the state. */
export type EntryLoader = (entry: ConversationEntry) => Promise<Message[]>;

/**
 * `messages({ last, after, before, limit })` over a conversation of tasks, with the local threads' meaning:
 * `after` starts past that message, `before` ends before it, `last` keeps the last n (of those), `limit`
 * keeps the first n (with `before` and no `after`, the last n: it pages backwards). Tasks are read one at a
 * time and only as far as the answer needs: `last` and `before` read from the newest task back, `limit`
 * stops once it has enough; `after` reads forward from the first task until it finds the message.
 */
export async function readConversation(
  entries: readonly ConversationEntry[],
  load: EntryLoader,
  options: ReadOptions,
  threadId: string,
): Promise<Message[]> {
  const limit = options.limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, options.limit);
  const last = options.last === undefined ? undefined : Math.max(0, options.last);
  if (options.before !== undefined) {
    return readBefore(entries, load, options.before, options.after, last, options.limit, threadId);
  }
  if (options.after !== undefined) {
    const following = await readAfter(entries, load, options.after, last === undefined ? limit : undefined);
    if (!following) throw new PointNotFoundError(threadId, options.after, { source: SOURCE });
    const from = last === undefined ? 0 : Math.max(0, following.length - last);
    return following.slice(from, from + limit);
  }
  if (last !== undefined) {
    const tail = last === 0 ? [] : await readLast(entries, load, last);
    return tail.slice(0, limit);
  }
  const messages: Message[] = [];
  for (const entry of entries) {
    if (messages.length >= limit) break;
    messages.push(...(await load(entry)));
  }
  return messages.slice(0, limit);
}

async function readLast(entries: readonly ConversationEntry[], load: EntryLoader, last: number) {
  const chunks: Message[][] = [];
  let count = 0;
  for (let index = entries.length - 1; index >= 0 && count < last; index--) {
    const messages = await load(entries[index] as ConversationEntry);
    chunks.unshift(messages);
    count += messages.length;
  }
  return chunks.flat().slice(-last);
}

/** The messages after `after`, or undefined if no entry holds it; stops at `enough` when given. */
async function readAfter(
  entries: readonly ConversationEntry[],
  load: EntryLoader,
  after: string,
  enough: number | undefined,
): Promise<Message[] | undefined> {
  let following: Message[] | undefined;
  for (const entry of entries) {
    const messages = await load(entry);
    if (following) {
      following.push(...messages);
    } else {
      const index = messages.findIndex((message) => message.id === after);
      if (index >= 0) following = messages.slice(index + 1);
    }
    if (following && enough !== undefined && following.length >= enough) break;
  }
  return following;
}

/**
 * The messages before `before` (and after `after`, when given), oldest first, then `last` and `limit` as
 * local threads apply them: read from the newest task back to `before`, then only as far back as kept.
 */
async function readBefore(
  entries: readonly ConversationEntry[],
  load: EntryLoader,
  before: string,
  after: string | undefined,
  last: number | undefined,
  limitOption: number | undefined,
  threadId: string,
): Promise<Message[]> {
  const limit = limitOption === undefined ? undefined : Math.max(0, limitOption);
  const wanted =
    after === undefined
      ? Math.min(last ?? Number.POSITIVE_INFINITY, limit ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  let found = false;
  let afterIsLater = false;
  let reachedAfter = false;
  const kept: Message[] = [];
  reading: for (let index = entries.length - 1; index >= 0; index--) {
    const messages = await load(entries[index] as ConversationEntry);
    for (let position = messages.length - 1; position >= 0; position--) {
      const message = messages[position] as Message;
      if (!found) {
        if (message.id === after) afterIsLater = true;
        found = message.id === before;
        if (found && (afterIsLater || wanted === 0)) break reading;
        continue;
      }
      if (message.id === after) {
        reachedAfter = true;
        break reading;
      }
      kept.push(message);
      if (kept.length >= wanted) break reading;
    }
  }
  if (!found) throw new PointNotFoundError(threadId, before, { source: SOURCE });
  if (after !== undefined && !reachedAfter) {
    // Not met going back from `before`: it is `before` itself or later (nothing lies between), or unknown.
    if (!afterIsLater) throw new PointNotFoundError(threadId, after, { source: SOURCE });
    return [];
  }
  let window = kept.reverse();
  if (last !== undefined) window = window.slice(Math.max(0, window.length - last));
  if (limit === undefined) return window;
  return after === undefined ? window.slice(Math.max(0, window.length - limit)) : window.slice(0, limit);
}

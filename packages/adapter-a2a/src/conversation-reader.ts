import { type Message, PointNotFoundError, type ReadOptions } from "@skein/thread-core";
import type { ConversationEntry } from "./a2a-thread-state.js";
import { SOURCE } from "./errors.js";

/** Reads one entry's messages: a task from the agent, or messages kept in the state. */
export type EntryLoader = (entry: ConversationEntry) => Promise<Message[]>;

/**
 * `messages({ last, after, limit })` over a conversation of tasks, with the local threads' meaning: `after`
 * starts past that message, `last` keeps the last n (of those), `limit` keeps the first n. Tasks are read
 * one at a time and only as far as the answer needs: `last` reads from the newest task back, `limit`
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

import { ConflictError, type Message, type MessageInput, PartialAppendError } from "@skein/thread-core";
import { canonicalJson, normalizeMessage } from "@skein/thread-core/driver";
import type OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { ConversationHistory } from "./conversation-history.js";
import { CONVERSATION_TYPE } from "./conversation-state.js";
import { SOURCE } from "./errors.js";
import type { ServiceItem } from "./item-to-message.js";
import { messageToItems } from "./message-to-items.js";
import { callService } from "./service-call.js";

/** The most items `conversations.items.create` and `conversations.create` accept in one request. */
export const MAX_ITEMS_PER_REQUEST = 20;

interface Entry {
  message: Message;
  items: ResponseInputItem[];
  /** Set when the conversation already holds the message. */
  stored?: Message[];
}

/**
 * Appends messages to a conversation: every input is validated and mapped before the first request, so a
 * message the service cannot hold fails the whole append with nothing written.
 */
export async function appendToConversation(
  client: OpenAI,
  history: ConversationHistory,
  input: MessageInput | MessageInput[],
): Promise<Message[]> {
  const inputs = Array.isArray(input) ? input : [input];
  const purpose = { kind: "store", threadType: CONVERSATION_TYPE } as const;
  const entries: Entry[] = inputs.map((raw, index) => {
    const message = normalizeMessage(raw, Array.isArray(input) ? [index] : []);
    return { message, items: messageToItems(message, purpose) };
  });
  for (const [index, entry] of entries.entries()) {
    if (couldBeStored(inputs[index])) entry.stored = await alreadyStored(history, entry);
  }
  const batches = batchesOf(entries.filter((entry) => !entry.stored && entry.items.length > 0));
  const appended = new Map<Entry, Message[]>();
  for (const [index, batch] of batches.entries()) {
    try {
      const created = await callService(
        client,
        { operation: "conversations.items.create", threadId: history.threadId },
        () =>
          client.conversations.items.create(history.conversationId, {
            items: batch.flatMap((part) => part.items),
          }),
      );
      let next = 0;
      for (const part of batch) {
        const messages = created.data
          .slice(next, next + part.items.length)
          .map((item) => history.toMessage(item as unknown as ServiceItem));
        next += part.items.length;
        appended.set(part.entry, [...(appended.get(part.entry) ?? []), ...messages]);
      }
    } catch (error) {
      if (index === 0) throw error;
      const landed = entries.flatMap((entry) => appended.get(entry) ?? []);
      const rest = new Set(batches.slice(index).flatMap((later) => later.map((part) => part.entry))).size;
      throw new PartialAppendError(history.threadId, landed, rest, { source: SOURCE, cause: error });
    }
  }
  return entries.flatMap((entry) => entry.stored ?? appended.get(entry) ?? []);
}

/** Item ids the service makes: a lowercase prefix, an underscore, then letters and digits (`msg_…`, `fc_…`). */
const ITEM_ID = /^[a-z]+_[A-Za-z0-9]+$/;

/**
 * Whether the message may already be in the conversation: the caller gave its id (a re-send, rather than
 * leaving skein to make one), and the id is shaped like the service's, the only ids a conversation holds.
 * Others (skein's sortable ids, an application's own) cost no lookup.
 */
function couldBeStored(raw: unknown): boolean {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === "string" && ITEM_ID.test(id);
}

/** The stored message when the conversation holds this id already; a `ConflictError` when it differs. */
async function alreadyStored(history: ConversationHistory, entry: Entry): Promise<Message[] | undefined> {
  const item = await history.find(entry.message.id);
  if (!item) return undefined;
  const stored = history.toMessage(item);
  const same =
    canonicalJson(messageToItems(stored, { kind: "model" })) === canonicalJson(entry.items) &&
    stored.role === entry.message.role;
  if (!same) {
    throw new ConflictError(
      `Message ${JSON.stringify(entry.message.id)} is already in the conversation with other content; nothing was written.`,
      entry.message.id,
      { source: SOURCE },
    );
  }
  return [stored];
}

/**
 * Groups entries into requests of at most 20 items without splitting a message, except one that alone
 * has more than 20 items.
 */
function batchesOf(entries: Entry[]): Array<Array<{ entry: Entry; items: ResponseInputItem[] }>> {
  const batches: Array<Array<{ entry: Entry; items: ResponseInputItem[] }>> = [];
  let current: Array<{ entry: Entry; items: ResponseInputItem[] }> = [];
  let size = 0;
  const close = () => {
    if (current.length > 0) batches.push(current);
    current = [];
    size = 0;
  };
  for (const entry of entries) {
    if (size + entry.items.length > MAX_ITEMS_PER_REQUEST) close();
    for (let from = 0; from < entry.items.length; from += MAX_ITEMS_PER_REQUEST) {
      if (from > 0) close();
      const items = entry.items.slice(from, from + MAX_ITEMS_PER_REQUEST);
      current.push({ entry, items });
      size += items.length;
    }
  }
  close();
  return batches;
}

import type { ThreadStore } from "@skein/thread-core";
import { describeValue } from "./chat-arguments.js";
import { ChatArgumentError } from "./errors.js";
import { isRecord } from "./namespace.js";

/** Options of `listChats`: the store, whose chats, how many, and where the previous page ended. */
export interface ListChatsOptions {
  store: ThreadStore;
  /** Only this owner's chats (the signed-in user). */
  owner?: string;
  /** Only chats whose top-level metadata keys equal these values. */
  where?: Record<string, unknown>;
  /** @default 20 */
  limit?: number;
  /** The `cursor` of the previous page. */
  cursor?: string;
}

/** One chat as a sidebar shows it. */
export interface ChatSummary {
  id: string;
  title?: string;
  owner?: string;
  createdAt?: string;
  updatedAt: string;
  /** How many skein messages the chat's thread holds, when the store knows it without reading them. */
  messageCount?: number;
  metadata: Record<string, unknown>;
}

/** A page of chats, newest first, and the cursor of the next page (absent on the last). */
export interface ChatPage {
  chats: ChatSummary[];
  cursor?: string;
}

/**
 * A sidebar's page: one owner's chats, most recently changed first, with their titles, in one call on any
 * store. Bad options are the store's `InvalidListOptionsError`.
 * @example const { chats, cursor } = await listChats({ store, owner: session.userId })
 */
export async function listChats(options: ListChatsOptions): Promise<ChatPage> {
  if (!isRecord(options) || !isRecord(options.store) || typeof options.store.list !== "function") {
    throw new ChatArgumentError(
      "listChats",
      "its options",
      "{ store, owner?, limit?, cursor? } with a skein store (await openStore(url))",
      describeValue(isRecord(options) ? options.store : options),
    );
  }
  const page = await options.store.list({
    order: "updated",
    direction: "desc",
    limit: options.limit ?? 20,
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.where === undefined ? {} : { where: options.where }),
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  });
  const chats = page.items.map(
    (item): ChatSummary => ({
      id: item.id,
      ...(item.title === undefined ? {} : { title: item.title }),
      ...(item.owner === undefined ? {} : { owner: item.owner }),
      ...(item.createdAt === undefined ? {} : { createdAt: item.createdAt }),
      updatedAt: item.updatedAt,
      ...(item.messageCount === undefined ? {} : { messageCount: item.messageCount }),
      metadata: item.metadata,
    }),
  );
  return page.cursor === undefined ? { chats } : { chats, cursor: page.cursor };
}

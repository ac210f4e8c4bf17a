import { type Message, PointNotFoundError, SkeinError } from "@skein/thread-core";
import type OpenAI from "openai";
import { SOURCE } from "./errors.js";
import { itemToMessage, type ServiceItem } from "./item-to-message.js";
import { MAX_PAGE, type RemoteHistory } from "./remote-history.js";
import { callService } from "./service-call.js";

/** A conversation's items, read through `conversations.items.list` a page (at most 100 items) per request. */
export class ConversationHistory implements RemoteHistory {
  constructor(
    readonly client: OpenAI,
    readonly threadId: string,
    readonly conversationId: string,
    /** Items carry no timestamps; their messages get the conversation's creation time. */
    readonly createdAt: string,
  ) {}

  async *newestFirst(pageSize: number): AsyncIterable<Message> {
    for await (const item of this.items("desc", pageSize)) yield this.toMessage(item);
  }

  async *oldestFirst(pageSize: number, after?: string): AsyncIterable<Message> {
    let first = true;
    for await (const item of this.items("asc", pageSize, after)) {
      first = false;
      yield this.toMessage(item);
    }
    // An empty page after a cursor means the cursor is the last item, or no item at all.
    if (first && after !== undefined && !(await this.contains(after))) {
      throw new PointNotFoundError(this.threadId, after, { source: SOURCE });
    }
  }

  /** The items older than `before`, from it as the cursor of a newest-first list. */
  async *olderThan(before: string, pageSize: number): AsyncIterable<Message> {
    let first = true;
    for await (const item of this.items("desc", pageSize, before)) {
      first = false;
      yield this.toMessage(item);
    }
    // An empty page after a cursor means the cursor is the oldest item, or no item at all.
    if (first && !(await this.contains(before))) {
      throw new PointNotFoundError(this.threadId, before, { source: SOURCE });
    }
  }

  async contains(id: string): Promise<boolean> {
    return (await this.find(id)) !== undefined;
  }

  /** The item with this id (one `conversations.items.retrieve`), or undefined. */
  async find(id: string): Promise<ServiceItem | undefined> {
    try {
      return (await callService(
        this.client,
        { operation: "conversations.items.retrieve", threadId: this.threadId },
        () => this.client.conversations.items.retrieve(id, { conversation_id: this.conversationId }),
      )) as unknown as ServiceItem;
    } catch (error) {
      if (SkeinError.isInstance(error) && (error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  /** The raw items in `order`, page by page (the service's own order is newest first). */
  async *items(order: "asc" | "desc", pageSize: number, after?: string): AsyncIterable<ServiceItem> {
    const context = {
      operation: "conversations.items.list",
      threadId: this.threadId,
      ...(after === undefined ? {} : { point: { param: "after", id: after } }),
    };
    const limit = Math.min(MAX_PAGE, Math.max(1, pageSize));
    let page = await callService(this.client, context, () =>
      this.client.conversations.items.list(this.conversationId, {
        order,
        limit,
        ...(after === undefined ? {} : { after }),
      }),
    );
    for (;;) {
      for (const item of page.data) yield item as unknown as ServiceItem;
      if (!page.hasNextPage()) return;
      const current = page;
      page = await callService(this.client, context, () => current.getNextPage());
    }
  }

  toMessage(item: ServiceItem): Message {
    return itemToMessage(item, this.createdAt);
  }
}

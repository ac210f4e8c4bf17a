import {
  type ForkOptions,
  PointNotFoundError,
  START,
  type Thread,
  UnsupportedOperationError,
} from "@skein/thread-core";
import { assertThreadId } from "@skein/thread-core/driver";
import type OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { MAX_ITEMS_PER_REQUEST } from "./conversation-append.js";
import type { ConversationHistory } from "./conversation-history.js";
import { CONVERSATION_TYPE, type OpenAIConversationState } from "./conversation-state.js";
import { SOURCE } from "./errors.js";
import { MAX_PAGE } from "./remote-history.js";
import { replayItem } from "./replay-item.js";
import { callService } from "./service-call.js";

/**
 * Forks a conversation by copying: a new conversation is created with the first 20 items, the rest follow
 * 20 per request while the parent is read 100 per request, so memory stays one page whatever the length.
 * If any request fails, the half-made copy is deleted and nothing is saved.
 */
export async function forkConversation(
  client: OpenAI,
  history: ConversationHistory,
  parent: OpenAIConversationState,
  options: ForkOptions,
  /** Binds and saves the fork's state. */
  adopt: (state: OpenAIConversationState) => Promise<Thread>,
): Promise<Thread> {
  const at = await forkPoint(history, options.at);
  if (options.id !== undefined) assertThreadId(options.id);
  const items = copiedItems(history, at);
  const first = await nextBatch(items);
  const created = await callService(client, { operation: "conversations.create" }, () =>
    client.conversations.create({ items: first.batch }),
  );
  try {
    let batch = first;
    while (!batch.done) {
      batch = await nextBatch(items);
      const current = batch.batch;
      if (current.length === 0) break;
      await callService(client, { operation: "conversations.items.create", threadId: parent.id }, () =>
        client.conversations.items.create(created.id, { items: current }),
      );
    }
    const state: OpenAIConversationState = {
      $type: CONVERSATION_TYPE,
      $v: 1,
      id: options.id ?? created.id,
      createdAt: new Date(created.created_at * 1000).toISOString(),
      metadata: { ...structuredClone(parent.metadata ?? {}), ...structuredClone(options.metadata ?? {}) },
      context: structuredClone(parent.context ?? {}),
      conversationId: created.id,
      forkedFrom: { threadId: parent.id, conversationId: parent.conversationId, ...(at ? { at } : {}) },
    };
    return await adopt(state);
  } catch (error) {
    await client.conversations.delete(created.id).catch(() => undefined);
    throw error;
  }
}

/**
 * The message id to copy up to (checked with one request), `"start"` to copy nothing, or undefined for the
 * whole conversation.
 */
async function forkPoint(history: ConversationHistory, at: ForkOptions["at"]): Promise<string | undefined> {
  if (at === undefined) return undefined;
  if (typeof at !== "string") {
    throw new UnsupportedOperationError(
      CONVERSATION_TYPE,
      "forking at a checkpoint",
      "conversations keep no checkpoints; fork at a message id.",
      { source: SOURCE },
    );
  }
  if (at === START) return at;
  if (!(await history.contains(at))) throw new PointNotFoundError(history.threadId, at, { source: SOURCE });
  return at;
}

async function* copiedItems(
  history: ConversationHistory,
  at: string | undefined,
): AsyncGenerator<ResponseInputItem> {
  if (at === START) return;
  for await (const item of history.items("asc", MAX_PAGE)) {
    yield replayItem(item);
    if (item.id === at) return;
  }
}

async function nextBatch(
  items: AsyncGenerator<ResponseInputItem>,
): Promise<{ batch: ResponseInputItem[]; done: boolean }> {
  const batch: ResponseInputItem[] = [];
  while (batch.length < MAX_ITEMS_PER_REQUEST) {
    const next = await items.next();
    if (next.done) return { batch, done: true };
    batch.push(next.value);
  }
  return { batch, done: false };
}

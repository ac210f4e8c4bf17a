import { type Answer, ok, ServiceFailure } from "./http-answers.js";
import { storeInput } from "./input-items.js";
import { listPage, type ServiceState, type StoredConversation } from "./service-state.js";

export interface RouteRequest {
  params: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** Settles when the client closes the connection. */
  closed: Promise<void>;
  /** For a streamed answer: stop after this many output items and keep the connection open. */
  stallAfterItems?: number;
  /** Answer with a response in status `failed`. */
  failResponse?: { code: string; message: string };
}

/** The most items the service takes in one `conversations.create` or `conversations.items.create`. */
const MAX_ITEMS = 20;

function conversationObject(conversation: StoredConversation): Record<string, unknown> {
  return {
    id: conversation.id,
    object: "conversation",
    created_at: conversation.created_at,
    metadata: conversation.metadata,
  };
}

function checkedItems(state: ServiceState, items: unknown, existing: StoredConversation["items"]) {
  if (items !== undefined && items !== null && !Array.isArray(items)) {
    throw new ServiceFailure(400, "Invalid type for 'items': expected an array.", "items");
  }
  if (Array.isArray(items) && items.length > MAX_ITEMS) {
    throw new ServiceFailure(
      400,
      `Invalid 'items': array too long. Expected at most ${MAX_ITEMS}.`,
      "items",
      "array_above_max_length",
    );
  }
  return storeInput(state, items ?? [], existing);
}

const CONVERSATION_TTLS = new Set(["30m", "12h"]);

/** POST/GET/DELETE /v1/conversations[/{id}] and /v1/conversations/{id}/items[/{item}]. */
export function conversationRoutes(state: ServiceState) {
  return {
    "conversations.create": ({ body }: RouteRequest): Answer => {
      // openai 7 added `ttl` (how long an idle conversation is kept); the service refuses any other value.
      if (body.ttl !== undefined && !CONVERSATION_TTLS.has(body.ttl as string))
        throw new ServiceFailure(400, `Invalid value: '${String(body.ttl)}'.`, "ttl", "invalid_value");
      const conversation: StoredConversation = {
        id: state.newId("conv"),
        created_at: state.now,
        metadata: (body.metadata as Record<string, string> | undefined) ?? {},
        items: [],
      };
      conversation.items = checkedItems(state, body.items, []);
      state.remember(conversation.items);
      state.conversations.set(conversation.id, conversation);
      return ok(conversationObject(conversation));
    },
    "conversations.retrieve": ({ params }: RouteRequest): Answer =>
      ok(conversationObject(state.conversation(params[0] as string))),
    "conversations.update": ({ params, body }: RouteRequest): Answer => {
      const conversation = state.conversation(params[0] as string);
      conversation.metadata = (body.metadata as Record<string, string> | undefined) ?? {};
      return ok(conversationObject(conversation));
    },
    "conversations.delete": ({ params }: RouteRequest): Answer => {
      const conversation = state.conversation(params[0] as string);
      state.conversations.delete(conversation.id);
      return ok({ id: conversation.id, object: "conversation.deleted", deleted: true });
    },
    "conversations.items.create": ({ params, body }: RouteRequest): Answer => {
      const conversation = state.conversation(params[0] as string);
      if (!Array.isArray(body.items))
        throw new ServiceFailure(400, "Missing required parameter: 'items'.", "items");
      const items = checkedItems(state, body.items, conversation.items);
      conversation.items.push(...items);
      state.remember(items);
      return ok({
        object: "list",
        data: items,
        first_id: items[0]?.id ?? null,
        last_id: items.at(-1)?.id ?? null,
        has_more: false,
      });
    },
    "conversations.items.list": ({ params, query }: RouteRequest): Answer =>
      ok(listPage(state.conversation(params[0] as string).items, query)),
    "conversations.items.retrieve": ({ params }: RouteRequest): Answer => {
      const item = state
        .conversation(params[0] as string)
        .items.find((candidate) => candidate.id === params[1]);
      if (!item) throw new ServiceFailure(404, `Item with id '${params[1]}' not found.`, null, "not_found");
      return ok(item);
    },
    "conversations.items.delete": ({ params }: RouteRequest): Answer => {
      const conversation = state.conversation(params[0] as string);
      const index = conversation.items.findIndex((candidate) => candidate.id === params[1]);
      if (index < 0)
        throw new ServiceFailure(404, `Item with id '${params[1]}' not found.`, null, "not_found");
      conversation.items.splice(index, 1);
      return ok(conversationObject(conversation));
    },
  };
}

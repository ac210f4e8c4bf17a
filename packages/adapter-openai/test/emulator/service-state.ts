import { ServiceFailure } from "./http-answers.js";

export type Item = Record<string, unknown> & { id: string; type: string };

export interface StoredConversation {
  id: string;
  created_at: number;
  metadata: Record<string, string>;
  items: Item[];
}

export interface StoredResponse {
  response: Record<string, unknown> & { id: string; output: Item[] };
  /** Everything the model was given: the chain's or conversation's items, then this request's input. */
  inputItems: Item[];
}

/** What the emulated service holds; tests may read it to check what reached the service. */
export class ServiceState {
  readonly conversations = new Map<string, StoredConversation>();
  readonly responses = new Map<string, StoredResponse>();
  /** Every item ever stored, by id, for `item_reference` inputs. */
  readonly items = new Map<string, Item>();
  #counter = 0;
  /** A fixed clock, so answers are the same on every run. */
  now = 1_764_000_000;

  newId(prefix: string): string {
    this.#counter++;
    return `${prefix}_${this.#counter.toString(16).padStart(16, "0")}`;
  }

  conversation(id: string): StoredConversation {
    const conversation = this.conversations.get(id);
    if (!conversation)
      throw new ServiceFailure(404, `Conversation with id '${id}' not found.`, null, "not_found");
    return conversation;
  }

  storedResponse(id: string): StoredResponse {
    const stored = this.responses.get(id);
    if (!stored) throw new ServiceFailure(404, `Response with id '${id}' not found.`, null, "not_found");
    return stored;
  }

  remember(items: Item[]): void {
    for (const item of items) this.items.set(item.id, item);
  }
}

/**
 * One page of a list, as the service pages: `order` (default `desc`), `after` (an id of the list), `limit`
 * 1–100 (default 20), in the envelope `{ object: "list", data, first_id, last_id, has_more }`.
 */
export function listPage(all: readonly Item[], query: URLSearchParams): Record<string, unknown> {
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") {
    throw new ServiceFailure(400, `Invalid value for 'order': '${order}'.`, "order", "invalid_value");
  }
  const limit = query.has("limit") ? Number(query.get("limit")) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new ServiceFailure(
      400,
      "Invalid 'limit': integer below minimum value or above maximum value.",
      "limit",
    );
  }
  const ordered = order === "asc" ? [...all] : [...all].reverse();
  let start = 0;
  const after = query.get("after");
  if (after) {
    const index = ordered.findIndex((item) => item.id === after);
    if (index < 0) throw new ServiceFailure(400, `Invalid 'after': no item with id '${after}'.`, "after");
    start = index + 1;
  }
  const data = ordered.slice(start, start + limit);
  return {
    object: "list",
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}

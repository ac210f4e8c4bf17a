import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { ServiceItem } from "./item-to-message.js";

/** Fields the service sets on items it stores, which an input item must not carry. */
const SERVER_FIELDS = ["id", "status", "created_by"];
const REPLAYED_WITHOUT_ID = new Set(["message", "function_call", "function_call_output"]);

/**
 * A stored item as input for another conversation (a fork's copy). Messages, calls and results are sent
 * without their ids, so the copy gets ids of its own; other items go as they are (reasoning and tool
 * items are referred to by id), less the server's `created_by`.
 */
export function replayItem(item: ServiceItem): ResponseInputItem {
  const { created_by: _createdBy, ...rest } = item;
  if (!REPLAYED_WITHOUT_ID.has(String(item.type))) return rest as unknown as ResponseInputItem;
  const copy: ServiceItem = { ...rest };
  for (const field of SERVER_FIELDS) delete copy[field];
  if (Array.isArray(copy.content)) {
    copy.content = copy.content.map((part) => {
      const { logprobs: _logprobs, ...kept } = part as ServiceItem;
      return kept;
    });
  }
  return copy as unknown as ResponseInputItem;
}

import type { Content, Message } from "@skein/thread-core";
import type { Response, ResponseInputItem } from "openai/resources/responses/responses";

/**
 * Leaves out function calls without a result and results without a call: the service refuses either,
 * and a thread interrupted between a call and its result must stay runnable.
 */
export function keepToolCallsPaired(items: ResponseInputItem[]): ResponseInputItem[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  // openai 7 types `call_id` as optional on both item kinds: one without it has no partner and is left out.
  for (const item of items) {
    if (item.type === "function_call" && item.call_id) calls.add(item.call_id);
    if (item.type === "function_call_output" && item.call_id) results.add(item.call_id);
  }
  return items.filter((item) => {
    if (item.type === "function_call") return !!item.call_id && results.has(item.call_id);
    if (item.type === "function_call_output") return !!item.call_id && calls.has(item.call_id);
    return true;
  });
}

/** The message with the run's token usage, and an `error` content when the response stopped early. */
export function withRunRecord(message: Message, response: Response): Message {
  const contents: Content[] = [...message.contents];
  const usage = response.usage;
  if (usage) {
    contents.push({
      type: "usage",
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      totalTokens: usage.total_tokens,
      ...(usage.output_tokens_details
        ? { reasoningTokens: usage.output_tokens_details.reasoning_tokens }
        : {}),
      ...(usage.input_tokens_details ? { cachedInputTokens: usage.input_tokens_details.cached_tokens } : {}),
    });
  }
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason ?? "incomplete";
    contents.push({ type: "error", message: `The response stopped early: ${reason}.`, code: reason });
  }
  return { ...message, contents };
}

import type { Item } from "./service-state.js";

type Event = { event: string; data: Record<string, unknown> };

/**
 * A response as the service streams it: `response.created`, `response.in_progress`, then per output item
 * `response.output_item.added`, its text deltas and `response.output_item.done`, then `response.completed`
 * (or `response.incomplete`). With `stallAfterItems`, it stops after that many items and never ends, as a
 * stuck connection would, until the client goes away.
 */
export async function* responseEvents(
  response: Record<string, unknown> & { output: Item[] },
  stallAfterItems: number | undefined,
  /** Settles when the client goes away. */
  closed: Promise<void>,
  /** With `context_management` in the request, openai 7's `response.compaction.compacting` comes first. */
  compacting = false,
): AsyncGenerator<Event> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): Event => ({
    event: type,
    data: { type, sequence_number: sequence++, ...data },
  });
  const inProgress = { ...response, status: "in_progress", output: [], usage: null };
  yield event("response.created", { response: inProgress });
  yield event("response.in_progress", { response: inProgress });
  if (compacting) yield event("response.compaction.compacting", { response_id: response.id });
  for (const [index, item] of response.output.entries()) {
    if (stallAfterItems !== undefined && index >= stallAfterItems) {
      await closed;
      return;
    }
    yield event("response.output_item.added", {
      output_index: index,
      item: { ...item, status: "in_progress" },
    });
    if (item.type === "message") {
      const text = String((item.content as Array<{ text?: string }>)[0]?.text ?? "");
      for (let at = 0; at < text.length; at += 8) {
        yield event("response.output_text.delta", {
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: text.slice(at, at + 8),
          logprobs: [],
        });
      }
    }
    yield event("response.output_item.done", { output_index: index, item });
  }
  const end = { incomplete: "response.incomplete", failed: "response.failed" }[String(response.status)];
  yield event(end ?? "response.completed", { response });
}

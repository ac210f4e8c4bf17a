import type { RouteRequest } from "./conversation-routes.js";
import { type Answer, ok, ServiceFailure } from "./http-answers.js";
import { storeInput } from "./input-items.js";
import { responseEvents } from "./response-events.js";
import type { ModelScript } from "./scripted-model.js";
import { type Item, listPage, type ServiceState } from "./service-state.js";

export interface ModelCall {
  context: Item[];
  body: Record<string, unknown>;
  responseId: string;
}

export interface ResponseRouteOptions {
  model: () => ModelScript;
  calls: ModelCall[];
}

/** POST /v1/responses, GET/DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items. */
export function responseRoutes(state: ServiceState, options: ResponseRouteOptions) {
  return {
    "responses.create": ({ body, closed, stallAfterItems, failResponse }: RouteRequest): Answer => {
      if (typeof body.model !== "string")
        throw new ServiceFailure(400, "Missing required parameter: 'model'.", "model");
      const conversationId =
        typeof body.conversation === "string"
          ? body.conversation
          : (body.conversation as { id?: string } | undefined)?.id;
      const previousId = body.previous_response_id as string | undefined;
      if (conversationId && previousId) {
        throw new ServiceFailure(
          400,
          "Mutually exclusive parameters: 'conversation' and 'previous_response_id'.",
          "previous_response_id",
        );
      }
      const context = contextOf(state, conversationId, previousId);
      const input = storeInput(state, body.input, context);
      const full = [...context, ...input];
      const answer = failResponse ? { output: [] } : options.model()({ context: full, body });
      const output = answer.output.map(
        (item) =>
          ({
            ...item,
            id: state.newId(idPrefix(item)),
            status: item.status ?? "completed",
          }) as unknown as Item,
      );
      const response = responseObject(state, body, output, answer.incomplete, conversationId);
      if (failResponse) Object.assign(response, { status: "failed", error: failResponse });
      options.calls.push({ context: full, body, responseId: response.id });
      if (body.store !== false) {
        state.responses.set(response.id, { response, inputItems: full });
        state.remember([...input, ...output]);
      }
      if (conversationId) state.conversation(conversationId).items.push(...input, ...output);
      if (body.stream === true)
        return {
          status: 200,
          events: responseEvents(response, stallAfterItems, closed, body.context_management !== undefined),
        };
      return ok(response);
    },
    "responses.retrieve": ({ params }: RouteRequest): Answer =>
      ok(state.storedResponse(params[0] as string).response),
    "responses.delete": ({ params }: RouteRequest): Answer => {
      state.storedResponse(params[0] as string);
      state.responses.delete(params[0] as string);
      return ok({ id: params[0], object: "response", deleted: true });
    },
    "responses.inputItems.list": ({ params, query }: RouteRequest): Answer =>
      ok(listPage(state.storedResponse(params[0] as string).inputItems, query)),
  };
}

function contextOf(
  state: ServiceState,
  conversationId: string | undefined,
  previousId: string | undefined,
): Item[] {
  if (conversationId) return [...state.conversation(conversationId).items];
  if (!previousId) return [];
  const previous = state.responses.get(previousId);
  if (!previous) {
    throw new ServiceFailure(
      400,
      `Previous response with id '${previousId}' not found.`,
      "previous_response_id",
      "previous_response_not_found",
    );
  }
  return [...previous.inputItems, ...previous.response.output];
}

function responseObject(
  state: ServiceState,
  body: Record<string, unknown>,
  output: Item[],
  incomplete: string | undefined,
  conversationId: string | undefined,
) {
  const characters = (items: unknown) => JSON.stringify(items).length;
  const outputTokens = Math.ceil(characters(output) / 4);
  const inputTokens = Math.ceil(characters(body.input ?? "") / 4);
  const text = output.flatMap((item) =>
    item.type === "message" ? (item.content as Array<{ text?: string }>) : [],
  );
  return {
    id: state.newId("resp"),
    object: "response",
    created_at: state.now,
    status: incomplete ? "incomplete" : "completed",
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: incomplete } : null,
    instructions: (body.instructions as string | undefined) ?? null,
    max_output_tokens: (body.max_output_tokens as number | undefined) ?? null,
    metadata: (body.metadata as Record<string, string> | undefined) ?? {},
    model: body.model as string,
    output,
    output_text: text.map((part) => part.text ?? "").join(""),
    parallel_tool_calls: true,
    previous_response_id: (body.previous_response_id as string | undefined) ?? null,
    conversation: conversationId ? { id: conversationId } : null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store: body.store !== false,
    temperature: (body.temperature as number | undefined) ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
    user: null,
  };
}

function idPrefix(item: Record<string, unknown>): string {
  return item.type === "function_call"
    ? "fc"
    : item.type === "reasoning"
      ? "rs"
      : item.type === "message"
        ? "msg"
        : "item";
}

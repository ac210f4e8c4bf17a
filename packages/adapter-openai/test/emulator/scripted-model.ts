import { itemText } from "./input-items.js";
import type { Item } from "./service-state.js";

/** What the emulated model is asked: the whole context it is given, and the request body. */
export interface ModelRequest {
  context: readonly Item[];
  body: Record<string, unknown>;
}

/** Output items without ids (the service assigns them), and whether the answer was cut short. */
export interface ModelAnswer {
  output: Array<Record<string, unknown>>;
  incomplete?: "max_output_tokens";
}

export type ModelScript = (request: ModelRequest) => ModelAnswer;

/**
 * A deterministic model: it answers a tool result with what the tool said, asks for the `weather` tool
 * when a user asks for the weather in a city and the tool is offered, thinks aloud when asked to reason,
 * answers in JSON when given a schema, and otherwise echoes the last user message.
 */
export const scriptedModel: ModelScript = ({ context, body }) => {
  const last = context.at(-1);
  const output: Array<Record<string, unknown>> = [];
  const lastUser = [...context].reverse().find((item) => item.type === "message" && item.role === "user");
  const text = itemText(lastUser);
  const reasoning = body.reasoning as { effort?: string } | undefined;
  if (reasoning?.effort && reasoning.effort !== "none") {
    const include = Array.isArray(body.include) ? body.include : [];
    output.push({
      type: "reasoning",
      summary: [{ type: "summary_text", text: `Thinking about "${text}".` }],
      ...(include.includes("reasoning.encrypted_content") ? { encrypted_content: `enc:${text}` } : {}),
    });
  }
  const city = /weather in ([A-Za-z]+)/i.exec(text)?.[1];
  if (last?.type !== "function_call_output" && city && offersTool(body, "weather")) {
    output.push({
      type: "function_call",
      call_id: `call_${context.length}`,
      name: "weather",
      arguments: JSON.stringify({ city }),
      status: "completed",
    });
    return { output };
  }
  const answer =
    last?.type === "function_call_output"
      ? `The tool answered: ${String(last.output)}`
      : wantsJson(body)
        ? JSON.stringify({ answer: text })
        : `echo: ${text}`;
  return withLimit(output, answer, body.max_output_tokens);
};

function withLimit(output: Array<Record<string, unknown>>, answer: string, maxTokens: unknown): ModelAnswer {
  const limit = typeof maxTokens === "number" ? maxTokens * 4 : Number.POSITIVE_INFINITY;
  const text = answer.slice(0, limit);
  output.push({
    type: "message",
    role: "assistant",
    status: text.length < answer.length ? "incomplete" : "completed",
    content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
  });
  return text.length < answer.length ? { output, incomplete: "max_output_tokens" } : { output };
}

function offersTool(body: Record<string, unknown>, name: string): boolean {
  return Array.isArray(body.tools) && body.tools.some((tool) => (tool as { name?: unknown }).name === name);
}

function wantsJson(body: Record<string, unknown>): boolean {
  return (body.text as { format?: { type?: string } } | undefined)?.format?.type === "json_schema";
}

import { ServiceFailure } from "./emulator-http.js";

type Json = Record<string, unknown>;

/** A new run as the classic API shows it: every field of `thread.run`, snake_case, timestamps in seconds. */
export function runRecord(
  id: string,
  threadId: string,
  agentId: string,
  now: number,
  body: Json,
): Json & { id: string; status: string; assistant_id: string } {
  return {
    id,
    object: "thread.run",
    thread_id: threadId,
    assistant_id: agentId,
    status: "queued",
    required_action: null,
    last_error: null,
    model: "emulated-deployment",
    instructions: String(body.additional_instructions ?? ""),
    tools: [],
    created_at: now,
    expires_at: now + 600,
    started_at: null,
    completed_at: null,
    cancelled_at: null,
    failed_at: null,
    incomplete_details: null,
    usage: null,
    temperature: body.temperature ?? 1,
    top_p: 1,
    max_prompt_tokens: body.max_prompt_tokens ?? null,
    max_completion_tokens: body.max_completion_tokens ?? null,
    truncation_strategy: { type: "auto", last_messages: null },
    tool_choice: "auto",
    response_format: body.response_format ?? "auto",
    metadata: {},
    tool_resources: null,
    parallel_tool_calls: true,
  };
}

export function textBlock(text: string): Json {
  return { type: "text", text: { value: text, annotations: [] } };
}

/** The stored content blocks for `messages.create` content: a string or input blocks. */
export function blocksOf(content: unknown): Json[] {
  if (typeof content === "string") return [textBlock(content)];
  if (!Array.isArray(content))
    throw new ServiceFailure(400, "content must be a string or an array of blocks.", { param: "content" });
  return (content as Json[]).map((block) => {
    if (block.type === "text") return textBlock(String(block.text));
    if (block.type === "image_file") return { type: "image_file", image_file: block.image_file };
    if (block.type === "image_url") return { type: "image_url", image_url: block.image_url };
    throw new ServiceFailure(400, `Unsupported content block type '${String(block.type)}'.`, {
      param: "content",
    });
  });
}

import type { RunConfig } from "@skein/thread-core";
import type { ResponseCreateParamsNonStreaming, Tool } from "openai/resources/responses/responses";
import { OpenAIConfigurationError } from "./errors.js";

/** The parts of a request that the runner's options and the run's config decide. */
export interface RequestDefaults {
  model?: string;
  tools?: Tool[];
  parameters?: Record<string, unknown>;
}

/** Fields the runner sets from the thread; `parameters` cannot override them. */
const RUNNER_FIELDS = ["input", "conversation", "previous_response_id", "store", "stream"];

/**
 * The request body for a run, without its input: `systemPrompt` → `instructions`, `maxOutputTokens` →
 * `max_output_tokens`, `thinkingLevel` → `reasoning.effort`, `outputSchema` → `text.format` (strict
 * `json_schema`), then the runner's and the config's `parameters` (snake_case request fields) on top.
 */
export function requestBody(config: RunConfig, defaults: RequestDefaults): ResponseCreateParamsNonStreaming {
  const model = config.model ?? defaults.model;
  if (!model) {
    throw new OpenAIConfigurationError("No model to run: pass openaiRunner({ model }) or config.model.");
  }
  const body: Record<string, unknown> = {
    model,
    ...(defaults.tools?.length ? { tools: defaults.tools } : {}),
    ...(config.systemPrompt ? { instructions: config.systemPrompt } : {}),
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
    ...(config.maxOutputTokens === undefined ? {} : { max_output_tokens: config.maxOutputTokens }),
    ...(config.thinkingLevel === undefined ? {} : { reasoning: { effort: config.thinkingLevel } }),
    ...(config.outputSchema
      ? {
          text: {
            format: { type: "json_schema", name: "output", schema: config.outputSchema, strict: true },
          },
        }
      : {}),
    ...defaults.parameters,
    ...config.parameters,
  };
  for (const field of RUNNER_FIELDS) delete body[field];
  return body as unknown as ResponseCreateParamsNonStreaming;
}

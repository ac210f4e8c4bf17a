import type { RunConfig } from "@skein/thread-core";
import { rejectUnhonouredConfig } from "../run-config.js";
import { FOUNDRY_THREAD } from "./agent-thread-state.js";
import type { RunCreateSettings } from "./run-driver.js";

/**
 * Run settings a classic run can take on top of its agent's definition. `config.model` names the agent
 * (`asst_…`) in this runner's terms; it is resolved by the caller, not sent as a model deployment.
 */
export function classicRunSettings(config: RunConfig | undefined): RunCreateSettings {
  rejectUnhonouredConfig(FOUNDRY_THREAD, config, [
    "model",
    "systemPrompt",
    "temperature",
    "maxInputTokens",
    "maxOutputTokens",
    "outputSchema",
  ]);
  if (!config) return {};
  return {
    ...(config.systemPrompt === undefined ? {} : { additionalInstructions: config.systemPrompt }),
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
    ...(config.maxInputTokens === undefined ? {} : { maxPromptTokens: config.maxInputTokens }),
    ...(config.maxOutputTokens === undefined ? {} : { maxCompletionTokens: config.maxOutputTokens }),
    ...(config.outputSchema === undefined
      ? {}
      : {
          responseFormat: {
            type: "json_schema",
            jsonSchema: { name: "output", schema: config.outputSchema },
          },
        }),
  };
}

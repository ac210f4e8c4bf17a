// The agent both test processes run: the SDK's own Responses model over a real `openai` client pointed at
// adapter-openai's loopback emulator, and a weather tool that needs a person's approval when asked to.
import { Agent, setTracingDisabled, tool } from "@openai/agents-core";
import { OpenAIResponsesModel } from "@openai/agents-openai";
import OpenAI from "openai";

// Tracing would export to api.openai.com; tests never leave loopback.
setTracingDisabled(true);

export function weatherAgent(emulatorUrl: string, apiKey: string, options: { approval: boolean }) {
  const client = new OpenAI({ apiKey, baseURL: `${emulatorUrl}/v1`, maxRetries: 0, timeout: 10_000 });
  const weather = tool({
    name: "weather",
    description: "The weather in a city.",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
    needsApproval: options.approval,
    execute: async (input) => `sunny in ${(input as { city: string }).city}`,
  });
  return new Agent({
    name: "forecaster",
    instructions: "Answer questions about the weather.",
    model: new OpenAIResponsesModel(client, "gpt-4.1-mini"),
    tools: [weather],
  });
}

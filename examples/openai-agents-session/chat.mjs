// One turn of a chat with an OpenAI Agents SDK agent whose history is a skein thread:
//   node chat.mjs <store URL> <session id> <message>
// Run it again with the same session id, in any process, and the agent sees the whole conversation.
// The model is OpenAI's Responses API (OPENAI_API_KEY, and OPENAI_BASE_URL for another endpoint).
import { Agent, run, tool } from "@openai/agents-core";
import { OpenAIResponsesModel } from "@openai/agents-openai";
import { createSkeinSession } from "@skein/openai-agents";
import { openStore } from "@skein/thread-core";
import OpenAI from "openai";

const [url = "file:./.skein", sessionId = "weather-chat", message = "What is the weather in Paris?"] =
  process.argv.slice(2);

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
  execute: async ({ city }) => `sunny in ${city}`,
});

const agent = new Agent({
  name: "forecaster",
  instructions: "Answer questions about the weather.",
  model: new OpenAIResponsesModel(new OpenAI(), "gpt-4.1-mini"),
  tools: [weather],
});

const store = await openStore(url);
const session = await createSkeinSession({ store, sessionId });
const result = await run(agent, message, { session });
const items = await session.getItems();
console.log(`${result.finalOutput}\n(${items.length} items in session ${sessionId})`);
await store.close();

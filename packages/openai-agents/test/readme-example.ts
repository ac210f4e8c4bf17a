import { Agent, run } from "@openai/agents-core";
import { OpenAIResponsesModel } from "@openai/agents-openai";
import { createSkeinSession } from "@skein/openai-agents";
import { openStore } from "@skein/thread-core";
import OpenAI from "openai";

const agent = new Agent({
  name: "assistant",
  instructions: "Answer briefly.",
  model: new OpenAIResponsesModel(new OpenAI(), "gpt-4.1-mini"),
});

const store = await openStore(process.env.SKEIN_STORE ?? "file:./.skein");
// The session id is the thread's id: any process that opens it resumes the conversation.
const session = await createSkeinSession({ store, sessionId: "user-42" });
await run(agent, "Hello!", { session });
const result = await run(agent, "What did I just say?", { session });
console.log(`${result.finalOutput} · ${(await session.getItems()).length} items`);

// The session is a skein thread: fork it, travel back in time, read it from any skein package.
const fork = await session.thread.fork();
console.log(`the fork has ${(await fork.messages()).length} messages`);
await store.close();

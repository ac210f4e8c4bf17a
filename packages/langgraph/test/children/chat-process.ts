// One process of the two-process graph test: `node --import tsx chat-process.ts <store url> <thread> <command> [text]`.
// `ask`: sends a user message; the graph stops before its agent. `resume`: runs the agent from the checkpoint.
// Prints the state it leaves as one JSON line.
import { HumanMessage } from "@langchain/core/messages";
import { SkeinCheckpointSaver } from "../../src/index.js";
import { chatGraph } from "../chat-graph.js";

const [url, threadId, command, text] = process.argv.slice(2) as [string, string, string, string | undefined];
const saver = await SkeinCheckpointSaver.open(url);
const graph = chatGraph(saver);
const config = { configurable: { thread_id: threadId } };
const before = await graph.getState(config);
if (command === "ask") await graph.invoke({ messages: [new HumanMessage(text ?? "")] }, config);
else if (command === "resume") await graph.invoke(null, config);
else throw new Error(`unknown command ${command}`);
const after = await graph.getState(config);
console.log(
  JSON.stringify({
    nextBefore: before.next,
    next: after.next,
    messages: after.values.messages.map(
      (message: HumanMessage) => `${message.getType()}: ${message.content}`,
    ),
    checkpointId: after.config.configurable?.checkpoint_id,
  }),
);
await saver.close();

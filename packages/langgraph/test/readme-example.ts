import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, type StateSnapshot } from "@langchain/langgraph";
import { fromLangChainMessages, SkeinCheckpointSaver } from "@skein/langgraph";

// Any store URL: "memory:", "file:./.skein", "redis://localhost:6379" (plain Redis, no modules).
const checkpointer = await SkeinCheckpointSaver.open(process.env.SKEIN_STORE ?? "memory:");
const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", ({ messages }) => ({
    messages: [new AIMessage(`You said: ${messages.at(-1)?.content}`)],
  }))
  .addEdge("__start__", "agent")
  .compile({ checkpointer });

const config = { configurable: { thread_id: "support-42" } };
await graph.invoke({ messages: [new HumanMessage("Is it warm in Lisbon?")] }, config);
await graph.invoke({ messages: [new HumanMessage("And in Porto?")] }, config);

// Time travel: back to the first answer, and a fork from there (the Porto branch stays in the history).
const history: StateSnapshot[] = [];
for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
const firstAnswer = history.find((snapshot) => snapshot.values.messages?.length === 2) as StateSnapshot;
const fork = await graph.updateState(
  firstAnswer.config,
  { messages: [new HumanMessage("And in Faro?")] },
  "__start__",
);
await graph.invoke(null, fork);

// The conversation as a skein thread: read, view, fork and export it with every skein tool.
const { messages } = (await graph.getState(config)).values;
const thread = await checkpointer.store.create({ id: "support-42-transcript" });
await thread.append(fromLangChainMessages(messages));
console.log(
  `${messages.at(-1)?.content} · ${history.length} checkpoints before the fork · ${(await thread.messages()).length} messages in skein`,
);
await checkpointer.close();

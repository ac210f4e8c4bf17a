// The graph the two-process test runs: a chat whose one node answers the last message, compiled to stop
// before that node so a later process can resume it from the checkpoint.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

function answer(state: typeof MessagesAnnotation.State) {
  const last = state.messages.at(-1) as BaseMessage;
  return { messages: [new AIMessage(`echo: ${String(last.content)}`)] };
}

export function chatGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", answer)
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer, interruptBefore: ["agent"] });
}

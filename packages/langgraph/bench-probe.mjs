import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SkeinCheckpointSaver } from "@skein/langgraph";
import { openStore } from "@skein/thread-core";

const steps = Number(process.argv[3] ?? 200);
const kind = process.argv[2];
const saver =
  kind === "memsaver"
    ? new MemorySaver()
    : new SkeinCheckpointSaver({
        store: await openStore(kind === "fs" ? "file:///tmp/lgbench/store-" + Date.now() : "memory:"),
      });
const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", () => ({}))
  .addEdge(START, "agent")
  .addEdge("agent", END)
  .compile({ checkpointer: saver });
const config = { configurable: { thread_id: "bench" } };
const t0 = performance.now();
for (let i = 0; i < steps; i++) {
  await graph.invoke({ messages: [new HumanMessage(`message ${i}: ${"lorem ipsum ".repeat(8)}`)] }, config);
  if ((i + 1) % 100 === 0) console.log(i + 1, ((performance.now() - t0) / 1000).toFixed(2) + "s");
}
const state = await graph.getState(config);
console.log(
  kind,
  steps,
  "steps",
  ((performance.now() - t0) / 1000).toFixed(2),
  "s",
  state.values.messages.length,
);
if (kind === "memsaver") {
  let bytes = 0;
  for (const threads of Object.values(saver.storage))
    for (const ns of Object.values(threads))
      for (const [c, m] of Object.values(ns)) bytes += c.byteLength + m.byteLength;
  for (const writes of Object.values(saver.writes))
    for (const [, , v] of Object.values(writes)) bytes += v.byteLength;
  console.log("memsaver bytes", bytes);
} else {
  const thread = await saver.store.get(saver.skeinThreadId("bench"));
  const messages = await thread.messages();
  console.log(
    "skein log messages",
    messages.length,
    "json bytes",
    messages.reduce((s, m) => s + JSON.stringify(m).length, 0),
  );
}

import { openStore } from "@skein/thread-core";

// Any store URL works here: "memory:", "file:./.skein", "redis://localhost:6379".
const store = await openStore(process.env.SKEIN_STORE ?? "memory:");
const thread = await store.create({ metadata: { user: "u-7" } });

await thread.append({ role: "user", text: "What's the weather in Paris?" });
await thread.append({
  role: "assistant",
  contents: [{ type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Paris" } }],
});
await thread.append({
  role: "tool",
  contents: [{ type: "function_result", callId: "call_1", result: { celsius: 21 } }],
});
const checkpoint = await thread.checkpoint("answered");
await thread.append({ role: "assistant", text: "21°C and sunny." });

const what = await thread.fork(); // O(1): shares history, grows on its own
await what.append({ role: "user", text: "And tomorrow?" });
await thread.rollback(checkpoint); // the dropped reply stays in thread.history()

const json = JSON.stringify(thread); // state only: store it anywhere
const again = await store.open(JSON.parse(json));
const context = await again.view({ maxTokens: 50 }); // newest messages that fit, tool calls whole
console.log(
  `${(await again.messages()).length} messages, ${context.length} in view, fork has ${(await what.messages()).length}`,
);
await store.close();

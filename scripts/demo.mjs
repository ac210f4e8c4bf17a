#!/usr/bin/env node
// `npm run demo`: a short scripted conversation on the embedded default store (files in ./.skein),
// or on whatever SKEIN_STORE names (memory:, redis://…). Shows a tool call, a checkpoint, a fork,
// a rollback, a truncated view, the thread's JSON, and the thread reopened from that JSON.
import { openStore } from "@skein/thread-core";

const url = process.env.SKEIN_STORE ?? "file:./.skein";
const store = await openStore(url);
const line = (label, text = "") => console.log(`${label.padEnd(12)} ${text}`);
const transcript = (messages) =>
  messages
    .map((message) => {
      const parts = message.contents.map((content) =>
        content.type === "text"
          ? content.text
          : content.type === "function_call"
            ? `→ ${content.name}(${JSON.stringify(content.arguments)})`
            : content.type === "function_result"
              ? `← ${JSON.stringify(content.result)}`
              : `[${content.type}]`,
      );
      return `    ${message.role.padEnd(9)} ${parts.join(" ")}`;
    })
    .join("\n");

line("store", store.url);
const thread = await store.create({ metadata: { demo: true, user: "u-7" } });
line("created", `${thread.type} thread ${thread.id}`);

await thread.append([
  { role: "system", text: "You are a concise travel assistant." },
  { role: "user", text: "Is it warm in Lisbon today?" },
  {
    role: "assistant",
    contents: [{ type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Lisbon" } }],
  },
  {
    role: "tool",
    contents: [{ type: "function_result", callId: "call_1", result: { celsius: 24, sky: "clear" } }],
  },
  { role: "assistant", text: "Yes: 24°C and clear." },
]);
const checkpoint = await thread.checkpoint("answered");
line("checkpoint", `${checkpoint.id} "${checkpoint.label}" at message ${checkpoint.point.position}`);

await thread.append({ role: "user", text: "Book me a table by the river." });
const fork = await thread.fork();
await fork.append({ role: "assistant", text: "Booked: 20:00 at Cais do Sodré." });
line("fork", `${fork.id} shares the first ${checkpoint.point.position + 1} messages and adds its own`);

await thread.rollback(checkpoint);
line("rollback", `back to "${checkpoint.label}"; history keeps ${(await thread.history()).length} events`);

line("transcript", `(${(await thread.messages()).length} messages)`);
console.log(transcript(await thread.messages()));
const view = await thread.view({ maxTokens: 40 });
line("view", `maxTokens 40 keeps ${view.length} messages (system kept, tool call whole):`);
console.log(transcript(view));

const json = JSON.stringify(thread);
line("JSON", json.length > 160 ? `${json.slice(0, 160)}… (${json.length} bytes)` : json);
const reopened = await store.open(JSON.parse(json));
line(
  "reopened",
  `${reopened.id}: ${(await reopened.messages()).length} messages, revision ${reopened.revision}`,
);
line(
  "fork",
  `${(await fork.messages()).length} messages, last: "${(await fork.messages({ last: 1 }))[0].contents[0].text}"`,
);
await store.close();

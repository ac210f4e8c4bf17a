import type { Message } from "@skein/thread-core";
import { forkTipOf, historyGraph, readLogState } from "@skein/thread-core/driver";
import type { Command } from "../cli/command.js";
import { noMoreArguments } from "../cli/option-values.js";
import { describeContents } from "../format/contents.js";
import { logLines } from "../history/thread-log.js";

export const demoCommand: Command = {
  name: "demo",
  summary: "Run a short scripted conversation on the store (what `npm run demo` shows)",
  usage: "demo",
  description:
    "Creates a thread with a tool call, takes a checkpoint, forks it, rolls it back, prints a truncated view and the thread's JSON, and reopens it from that JSON. Runs on any store: the default file:./.skein, SKEIN_STORE=memory:, or --store redis://…",
  options: {},
  examples: ["skein demo", "SKEIN_STORE=memory: skein demo"],
  async run(context) {
    noMoreArguments(context, 0);
    const store = await context.store({ create: true });
    const line = (label: string, text = "") => context.stdout.line(`${label.padEnd(12)} ${text}`);
    const transcript = (messages: Message[]) =>
      context.stdout.lines(
        messages.map((message) => `    ${message.role.padEnd(9)} ${describeContents(message)}`).join("\n"),
      );

    await line("store", store.url);
    const thread = await store.create({ metadata: { demo: true, user: "u-7" } });
    await line("created", `${thread.type} thread ${thread.id}`);
    await thread.append([
      { role: "system", text: "You are a concise travel assistant." },
      { role: "user", text: "Is it warm in Lisbon today?" },
      {
        role: "assistant",
        contents: [
          { type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Lisbon" } },
        ],
      },
      {
        role: "tool",
        contents: [{ type: "function_result", callId: "call_1", result: { celsius: 24, sky: "clear" } }],
      },
      { role: "assistant", text: "Yes: 24°C and clear." },
    ]);
    const checkpoint = await thread.checkpoint("answered");
    await line(
      "checkpoint",
      `${checkpoint.id} "${checkpoint.label}" at message ${checkpoint.point.position}`,
    );

    await thread.append({ role: "user", text: "Book me a table by the river." });
    const fork = await thread.fork();
    await fork.append({ role: "assistant", text: "Booked: 20:00 at Cais do Sodré." });
    await line(
      "fork",
      `${fork.id} shares the first ${checkpoint.point.position + 1} messages and adds its own`,
    );

    await thread.rollback(checkpoint);
    await line(
      "rollback",
      `back to "${checkpoint.label}"; history keeps ${(await thread.history()).length} events`,
    );

    const messages = await thread.messages();
    await line("transcript", `(${messages.length} messages)`);
    await transcript(messages);
    const view = await thread.view({ maxTokens: 40 });
    await line("view", `maxTokens 40 keeps ${view.length} messages (system kept, tool call whole):`);
    await transcript(view);

    const json = JSON.stringify(thread);
    await line("JSON", json.length > 160 ? `${json.slice(0, 160)}… (${json.length} bytes)` : json);
    const reopened = await store.open(JSON.parse(json));
    await line(
      "reopened",
      `${reopened.id}: ${(await reopened.messages()).length} messages, revision ${reopened.revision}`,
    );
    const [last] = await fork.messages({ last: 1 });
    await line(
      "fork",
      `${(await fork.messages()).length} messages, last: "${last ? describeContents(last) : ""}"`,
    );

    const tip = await forkTipOf(fork, thread.id);
    await line("log", "the thread's history, newest first (skein log --forks):");
    const graph = logLines(historyGraph(await readLogState(store, thread.id), tip ? [tip] : []));
    await context.stdout.lines(graph.map((text) => `    ${text}`).join("\n"));
    if (store.url !== "memory:") await line("try", `skein show ${thread.id}; skein log ${thread.id} --forks`);
  },
};

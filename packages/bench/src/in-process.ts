import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { MemorySession } from "@openai/agents-core";
import { openStore } from "@skein/thread-core";
import type { Result } from "./compare.js";
import { median } from "./measure.js";
import { workloadMessages } from "./workload.js";

/** Appends `count` messages one at a time, then loads them all, `rounds` times: per-append and per-load medians. */
export interface AppendLoadSubject {
  append: (index: number) => Promise<unknown>;
  load: () => Promise<number>;
  close?: () => Promise<unknown>;
}

export async function appendAndLoad(
  rounds: number,
  count: number,
  subject: () => Promise<AppendLoadSubject>,
) {
  const appends: number[] = [];
  const loads: number[] = [];
  // Round 0 only warms the JIT up: V8 needs a few thousand calls before any subject runs at speed.
  for (let round = -1; round < rounds; round++) {
    const target = await subject();
    const start = process.hrtime.bigint();
    for (let index = 0; index < count; index++) await target.append(index);
    const appendMicros = Number(process.hrtime.bigint() - start) / 1000 / count;
    const loadStart = process.hrtime.bigint();
    const loaded = await target.load();
    const loadMicros = Number(process.hrtime.bigint() - loadStart) / 1000;
    if (loaded !== count) throw new Error(`loaded ${loaded} of ${count} messages`);
    // A subject slow enough that its warm-up round took over two seconds gains nothing from warming: count it.
    if (round >= 0 || appendMicros * count > 2_000_000) {
      appends.push(appendMicros);
      loads.push(loadMicros);
      if (round < 0 && rounds > 1) round++;
    }
    await target.close?.();
  }
  return { append: median(appends), load: median(loads) };
}

/** skein's memory store beside the in-process sessions a user might pick instead. */
export async function inProcessResults(rounds: number, count = 1000): Promise<Result[]> {
  const messages = workloadMessages(count);
  const subjects: Array<[string, () => Promise<AppendLoadSubject>]> = [
    [
      "skein memory store",
      async () => {
        const thread = await (await openStore("memory:")).create();
        return {
          append: (index) => thread.append(messages[index] as { role: "user"; text: string }),
          load: async () => (await thread.messages()).length,
        };
      },
    ],
    [
      "@openai/agents-core MemorySession",
      async () => {
        const session = new MemorySession();
        return {
          append: (index) => {
            const message = messages[index] as { role: "user" | "assistant"; text: string };
            return session.addItems([
              message.role === "user"
                ? { role: "user", content: message.text }
                : {
                    role: "assistant",
                    status: "completed",
                    content: [{ type: "output_text", text: message.text }],
                  },
            ]);
          },
          load: async () => (await session.getItems()).length,
        };
      },
    ],
    [
      "LangGraph MemorySaver (one-node graph)",
      async () => {
        const graph = new StateGraph(MessagesAnnotation)
          .addNode("agent", () => ({ messages: [] }))
          .addEdge(START, "agent")
          .addEdge("agent", END)
          .compile({ checkpointer: new MemorySaver() });
        const config = { configurable: { thread_id: "bench" } };
        return {
          append: (index) => {
            const message = messages[index] as { role: string; text: string };
            const value: BaseMessage =
              message.role === "user" ? new HumanMessage(message.text) : new AIMessage(message.text);
            return graph.updateState(config, { messages: [value] });
          },
          load: async () => ((await graph.getState(config)).values.messages as BaseMessage[]).length,
        };
      },
    ],
  ];
  return appendAndLoadResults("in process", rounds, count, subjects);
}

/** Runs each subject and gives append and load rows, the first subject being the baseline of the ratios. */
export async function appendAndLoadResults(
  scenario: string,
  rounds: number,
  count: number,
  subjects: Array<[string, () => Promise<AppendLoadSubject>]>,
): Promise<Result[]> {
  const results: Result[] = [];
  for (const [subject, make] of subjects) {
    process.stderr.write(`  ${scenario}: ${subject}…\n`);
    try {
      const { append, load } = await appendAndLoad(rounds, count, make);
      results.push({ scenario, subject, metric: "append one message", micros: append });
      results.push({ scenario, subject, metric: `load ${count} messages`, micros: load });
    } catch (error) {
      const skipped = (error as Error).message.split("\n")[0];
      results.push({ scenario, subject, metric: "append one message", skipped });
      results.push({ scenario, subject, metric: `load ${count} messages`, skipped });
    }
  }
  return results.sort((a, b) => a.metric.localeCompare(b.metric));
}

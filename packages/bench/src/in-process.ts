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

/** One round: a fresh subject, `count` appends one at a time, one load; per-append and load times. */
async function appendAndLoadOnce(count: number, subject: () => Promise<AppendLoadSubject>) {
  const target = await subject();
  try {
    const start = process.hrtime.bigint();
    for (let index = 0; index < count; index++) await target.append(index);
    const append = Number(process.hrtime.bigint() - start) / 1000 / count;
    const loadStart = process.hrtime.bigint();
    const loaded = await target.load();
    const load = Number(process.hrtime.bigint() - loadStart) / 1000;
    if (loaded !== count) throw new Error(`loaded ${loaded} of ${count} messages`);
    return { append, load };
  } finally {
    await target.close?.();
  }
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

const WARM_UP_ROUNDS = 3;

/**
 * Runs every subject `rounds` times, in turns (round by round, so drift in the machine's speed falls on
 * all of them alike), and gives append and load medians; the first subject is the baseline of the ratios.
 * The first WARM_UP_ROUNDS only warm the JIT up: V8 needs a few thousand calls before a subject runs at
 * speed, and skein's deeper call paths need about three rounds of 1,000 (the first rounds of a Redis append
 * run at 2–3× its settled time). A subject slow enough that a warm-up round took over two seconds gains
 * nothing from warming, so that round counts.
 */
export async function appendAndLoadResults(
  scenario: string,
  rounds: number,
  count: number,
  subjects: Array<[string, () => Promise<AppendLoadSubject>]>,
): Promise<Result[]> {
  const runs = subjects.map(() => ({ appends: [] as number[], loads: [] as number[], skipped: "" }));
  for (let round = -WARM_UP_ROUNDS; round < rounds; round++) {
    for (const [index, [subject, make]] of subjects.entries()) {
      const run = runs[index] as (typeof runs)[number];
      if (run.skipped || run.appends.length >= rounds) continue;
      if (round === -WARM_UP_ROUNDS) process.stderr.write(`  ${scenario}: ${subject}…\n`);
      try {
        const { append, load } = await appendAndLoadOnce(count, make);
        if (round < 0 && append * count <= 2_000_000) continue;
        run.appends.push(append);
        run.loads.push(load);
      } catch (error) {
        run.skipped = (error as Error).message.split("\n")[0] as string;
      }
    }
  }
  const results: Result[] = [];
  for (const [index, [subject]] of subjects.entries()) {
    const { appends, loads, skipped } = runs[index] as (typeof runs)[number];
    const metrics: Array<[string, number[]]> = [
      ["append one message", appends],
      [`load ${count} messages`, loads],
    ];
    for (const [metric, values] of metrics) {
      results.push(
        skipped
          ? { scenario, subject, metric, skipped }
          : { scenario, subject, metric, micros: median(values) },
      );
    }
  }
  return results.sort((a, b) => a.metric.localeCompare(b.metric));
}

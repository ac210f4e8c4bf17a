// A real LangGraph StateGraph (MessagesAnnotation) on a file store: a turn begun in one process is resumed
// from its checkpoint in another, then travelled back with getStateHistory and forked with updateState.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import {
  Command,
  interrupt,
  MemorySaver,
  MessagesAnnotation,
  StateGraph,
  type StateSnapshot,
} from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { openStore } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fromLangChainMessages, SkeinCheckpointSaver, toLangChainMessages } from "../src/index.js";
import { chatGraph } from "./chat-graph.js";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./children/chat-process.ts", import.meta.url));
const packageDirectory = fileURLToPath(new URL("..", import.meta.url));

interface ChildState {
  nextBefore: string[];
  next: string[];
  messages: string[];
  checkpointId: string;
}

async function inProcess(url: string, ...args: string[]): Promise<ChildState> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", child, url, "chat-1", ...args], {
    cwd: packageDirectory,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as ChildState;
}

const lines = (messages: BaseMessage[]) =>
  messages.map((message) => `${message.getType()}: ${message.content}`);

describe("a StateGraph with MessagesAnnotation on a file store", () => {
  let directory: string;
  let url: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), "skein-langgraph-graph-"));
    url = `file://${directory}`;
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("resumes in a second process, then travels back and forks at an older checkpoint", async () => {
    const asked = await inProcess(url, "ask", "hello");
    expect(asked.next).toEqual(["agent"]);
    expect(asked.messages).toEqual(["human: hello"]);

    // Another process: the interrupted turn is waiting at its checkpoint, and runs from there.
    const resumed = await inProcess(url, "resume");
    expect(resumed.nextBefore).toEqual(["agent"]);
    expect(resumed.next).toEqual([]);
    expect(resumed.messages).toEqual(["human: hello", "ai: echo: hello"]);
    await inProcess(url, "ask", "how are you?");
    const second = await inProcess(url, "resume");
    expect(second.messages).toEqual([
      "human: hello",
      "ai: echo: hello",
      "human: how are you?",
      "ai: echo: how are you?",
    ]);

    // This process: time travel through the history the two children wrote.
    const saver = await SkeinCheckpointSaver.open(url);
    const graph = chatGraph(saver);
    const config = { configurable: { thread_id: "chat-1" } };
    const history: StateSnapshot[] = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    expect(history[0]?.config.configurable?.checkpoint_id).toBe(second.checkpointId);
    // Newest first: the second answer, the second question waiting for the agent, its input, the first
    // answer, the first question waiting, and the first input.
    expect(history.map((snapshot) => snapshot.values.messages?.length ?? 0)).toEqual([4, 3, 2, 2, 1, 0]);
    expect(history.map((snapshot) => snapshot.next)).toEqual([
      [],
      ["agent"],
      ["__start__"],
      [],
      ["agent"],
      ["__start__"],
    ]);
    const afterFirstAnswer = history.find(
      (snapshot) => snapshot.values.messages?.length === 2 && snapshot.next.length === 0,
    ) as StateSnapshot;

    // As if the user had asked something else after the first answer: the agent runs next.
    const forkConfig = await graph.updateState(
      afterFirstAnswer.config,
      { messages: [new HumanMessage("tell me a joke instead")] },
      "__start__",
    );
    await graph.invoke(null, forkConfig);
    const fork = await graph.getState(config);
    expect(lines(fork.values.messages)).toEqual([
      "human: hello",
      "ai: echo: hello",
      "human: tell me a joke instead",
      "ai: echo: tell me a joke instead",
    ]);
    expect(fork.parentConfig?.configurable?.checkpoint_id).not.toBe(second.checkpointId);
    // The branch the fork left is intact at its checkpoint.
    const original = await graph.getState({
      configurable: { thread_id: "chat-1", checkpoint_id: second.checkpointId },
    });
    expect(lines(original.values.messages)).toEqual(second.messages);
    await saver.close();
  });

  it("a graph's conversation becomes a skein thread, and a skein thread seeds a graph", async () => {
    const saver = await SkeinCheckpointSaver.open(url);
    const graph = chatGraph(saver);
    const store = await openStore(url);
    const seed = await store.create({ id: "seed" });
    await seed.append([
      { role: "system", text: "You echo." },
      { role: "user", text: "from a skein thread" },
    ]);
    const config = { configurable: { thread_id: "seeded" } };
    await graph.invoke({ messages: toLangChainMessages(await seed.messages()) }, config);
    await graph.invoke(null, config);
    const state = await graph.getState(config);
    expect(lines(state.values.messages)).toEqual([
      "system: You echo.",
      "human: from a skein thread",
      "ai: echo: from a skein thread",
    ]);

    const exported = await store.create({ id: "exported" });
    await exported.append(fromLangChainMessages(state.values.messages));
    const view = await exported.view({ maxMessages: 2 });
    // Every skein tool reads it: a view keeps the system message and the newest answer.
    expect(view.map((message) => message.role)).toEqual(["system", "assistant"]);
    expect(toLangChainMessages(await exported.messages())).toEqual(state.values.messages);
    await store.close();
    await saver.close();
  });

  it("gives LangGraph the same history as MemorySaver for the same turns, forks included", async () => {
    const replay = async (checkpointer: BaseCheckpointSaver) => {
      const graph = chatGraph(checkpointer);
      const config = { configurable: { thread_id: "same" } };
      for (const text of ["one", "two", "three"]) {
        await graph.invoke({ messages: [new HumanMessage({ content: text, id: text })] }, config);
        await graph.invoke(null, config);
      }
      const history: StateSnapshot[] = [];
      for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
      const older = history.find((snapshot) => snapshot.values.messages?.length === 2) as StateSnapshot;
      const fork = await graph.updateState(
        older.config,
        { messages: [new HumanMessage({ content: "two'", id: "two'" })] },
        "__start__",
      );
      await graph.invoke(null, fork);
      const after: StateSnapshot[] = [];
      for await (const snapshot of graph.getStateHistory(config)) after.push(snapshot);
      // Checkpoint ids and times differ between runs; everything LangGraph derives from the saver must not.
      return after.map((snapshot) => ({
        messages: (snapshot.values.messages ?? []).map((message: BaseMessage) => [
          message.getType(),
          message.content,
        ]),
        next: snapshot.next,
        step: snapshot.metadata?.step,
        source: snapshot.metadata?.source,
        tasks: snapshot.tasks.map((task) => task.name),
        hasParent: snapshot.parentConfig !== undefined,
      }));
    };
    const saver = await SkeinCheckpointSaver.open(url);
    const skein = await replay(saver);
    await saver.close();
    expect(skein).toEqual(await replay(new MemorySaver()));
    expect(skein.length).toBeGreaterThan(10);
  });

  it("keeps a subgraph's checkpoints in their own namespace: interrupted inside, resumed, as with MemorySaver", async () => {
    const replay = async (checkpointer: BaseCheckpointSaver) => {
      const approval = new StateGraph(MessagesAnnotation)
        .addNode("ask", () => {
          const answer = interrupt("approve?");
          return { messages: [new AIMessage({ content: `approved: ${answer}`, id: "approved" })] };
        })
        .addEdge("__start__", "ask")
        .compile();
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("approval", approval)
        .addNode("finish", (state) => ({
          messages: [new AIMessage({ content: `done after ${state.messages.length}`, id: "finish" })],
        }))
        .addEdge("__start__", "approval")
        .addEdge("approval", "finish")
        .compile({ checkpointer });
      const config = { configurable: { thread_id: "nested" } };
      await graph.invoke({ messages: [new HumanMessage({ content: "go", id: "go" })] }, config);
      const waiting = await graph.getState(config, { subgraphs: true });
      await graph.invoke(new Command({ resume: "yes" }), config);
      const namespaces = new Set<string>();
      for await (const tuple of checkpointer.list({ configurable: { thread_id: "nested" } })) {
        namespaces.add(String(tuple.config.configurable?.checkpoint_ns).split(":")[0] as string);
      }
      return {
        next: waiting.next,
        inside: (waiting.tasks[0]?.state as StateSnapshot | undefined)?.values.messages.length,
        interrupts: waiting.tasks[0]?.interrupts.map((pending) => pending.value),
        messages: lines((await graph.getState(config)).values.messages),
        namespaces: [...namespaces].sort(),
      };
    };
    const saver = await SkeinCheckpointSaver.open(url);
    const skein = await replay(saver);
    await saver.close();
    expect(skein).toEqual({
      next: ["approval"],
      inside: 1,
      interrupts: ["approve?"],
      messages: ["human: go", "ai: approved: yes", "ai: done after 2"],
      namespaces: ["", "approval"],
    });
    expect(skein).toEqual(await replay(new MemorySaver()));
  });
});

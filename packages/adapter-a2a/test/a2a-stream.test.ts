import { messageText, openStore, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type A2aStreamEvent, type A2aThread, a2aAdapter } from "../src/index.js";
import { type AgentServer, startAgentServer } from "./agent-server.js";

let server: AgentServer;
let store: ThreadStore;

beforeAll(async () => {
  server = await startAgentServer();
  store = await openStore("memory:", { adapters: [a2aAdapter()] });
});
afterAll(async () => {
  await store.close();
  await server.close();
});

async function collect(events: AsyncIterable<A2aStreamEvent>): Promise<A2aStreamEvent[]> {
  const seen: A2aStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const summary = (event: A2aStreamEvent) => ({
  kind: event.kind,
  state: "state" in event ? event.state : undefined,
  texts: event.messages.map(messageText),
});

describe("streaming turns", () => {
  it("yields the agent's events as they come, with the messages each completes", async () => {
    const thread = (await store.create("a2a", { agentUrl: server.agentUrl("echo") })) as A2aThread;
    const events = await collect(thread.stream({ role: "user", text: "hi" }));
    expect(events.map(summary)).toEqual([
      { kind: "task", state: "submitted", texts: [] },
      { kind: "status", state: "working", texts: [] },
      { kind: "artifact", state: undefined, texts: ["HI"] },
      { kind: "status", state: "completed", texts: ["echo: hi"] },
    ]);
    const final = events[3];
    expect(final).toMatchObject({
      kind: "status",
      final: true,
      taskId: thread.taskId,
      contextId: thread.contextId,
    });
    expect(final?.raw.payload?.$case).toBe("statusUpdate");
    expect(thread.taskState).toBe("completed");
    expect((await thread.messages()).map(messageText)).toEqual(["hi", "echo: hi", "HI"]);
    expect((await store.get(thread.id)).toJSON()).toMatchObject({
      taskId: thread.taskId,
      taskState: "completed",
    });
  });

  it("ends a turn that needs input with a final input-required status, and continues it", async () => {
    const thread = (await store.create("a2a", { agentUrl: server.agentUrl("ask") })) as A2aThread;
    const asked = await collect(thread.stream({ role: "user", text: "hi" }));
    expect(asked.at(-1)).toMatchObject({ kind: "status", state: "input-required", final: true });
    const answered = await collect(thread.stream({ role: "user", text: "Grace" }));
    expect(answered.flatMap((event) => event.messages).map(messageText)).toEqual(["Hello, Grace!"]);
    expect(answered[0]).toMatchObject({
      kind: "task",
      taskId: asked[0]?.kind === "task" ? asked[0].taskId : "",
    });
  });

  it("sends nothing until read, and records the task when the reader stops early", async () => {
    const thread = (await store.create("a2a", { agentUrl: server.agentUrl("echo") })) as A2aThread;
    const stream = thread.stream({ role: "user", text: "lazy" });
    expect(await thread.messages()).toEqual([]);
    for await (const event of stream) {
      expect(event.kind).toBe("task");
      break;
    }
    expect(thread.taskId).toBeDefined();
    expect(thread.toJSON().conversation).toEqual([{ taskId: thread.taskId }]);
    expect((await thread.messages({ limit: 1 })).map(messageText)).toEqual(["lazy"]);
  });

  it("gives one task event holding the whole turn when the agent does not stream", async () => {
    const thread = (await store.create("a2a", { agentUrl: server.agentUrl("unstreamed") })) as A2aThread;
    const events = await collect(thread.stream({ role: "user", text: "flat" }));
    expect(events.map(summary)).toEqual([
      { kind: "task", state: "completed", texts: ["echo: flat", "FLAT"] },
    ]);
    expect(thread.taskState).toBe("completed");
  });

  it("streams a plain-message answer as one message event", async () => {
    const thread = await store.create("a2a", { agentUrl: server.agentUrl("plain") });
    const events = await collect((thread as A2aThread).stream({ role: "user", text: "yo" }));
    expect(events.map(summary)).toEqual([{ kind: "message", state: undefined, texts: ["plain: yo"] }]);
    expect((await thread.messages()).map(messageText)).toEqual(["yo", "plain: yo"]);
  });
});

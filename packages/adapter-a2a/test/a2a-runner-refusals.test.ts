import {
  messageText,
  openStore,
  type RunConfig,
  type Thread,
  type ThreadStore,
  UnsupportedOperationError,
  UnsupportedRunConfigError,
  type WorkflowThread,
  withContextProviders,
} from "@skein/thread-core";
import { isServiceThread } from "@skein/thread-core/driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type A2aThread, a2aAdapter, a2aRunner } from "../src/index.js";
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

/** What `task` threw, which must be an error; fails if it resolved. */
async function caught(task: Promise<unknown>): Promise<unknown> {
  return task.then(
    () => {
      throw new Error("expected the run to fail");
    },
    (error: unknown) => error,
  );
}

/** Requests the agent server saw while `task` ran, and what the task threw. */
async function requestsDuring(task: () => Promise<unknown>): Promise<{ requests: number; error: unknown }> {
  const before = server.requests.length;
  const error = await caught(task());
  return { requests: server.requests.length - before, error };
}

/** A stored task (as `skeinTaskStore` keeps it) whose last message is a user's, not yet answered. */
async function storedTask(): Promise<Thread> {
  return store.open({
    $type: "a2a.task",
    id: "task-1",
    task: {
      id: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_SUBMITTED" },
      history: [
        {
          messageId: "m-1",
          contextId: "ctx-1",
          role: "ROLE_USER",
          parts: [{ text: "hello from the task" }],
        },
      ],
    },
  });
}

describe("a2aRunner.supports and refusals before any request", () => {
  it("serves local threads and a2a threads with its agent, not a stored task or another agent's thread", async () => {
    const echo = a2aRunner({ agentUrl: server.agentUrl("echo") });
    expect(echo.supports(await store.create())).toBe(true);
    expect(echo.supports(await store.create("a2a", { agentUrl: server.agentUrl("echo") }))).toBe(true);
    expect(echo.supports(await store.create("a2a", { agentUrl: server.agentUrl("ask") }))).toBe(false);
    expect(echo.supports(await storedTask())).toBe(false);
    const workflow = (await store.create("workflow", { threads: [] })) as WorkflowThread;
    expect(echo.supports(workflow)).toBe(false); // no main sub-thread to run as
    await workflow.addThread("main");
    expect(echo.supports(workflow)).toBe(true);
  });

  it("a2a threads and stored tasks name A2A as their history's service, as a third-party remote type must", async () => {
    const thread = await store.open({
      $type: "a2a",
      id: "declared",
      agentUrl: server.agentUrl("echo"),
      contextId: "ctx-declared",
    });
    for (const each of [thread, await storedTask()]) {
      expect(each).toMatchObject({ historyService: "a2a" });
      expect(isServiceThread(each)).toBe(true);
    }
  });

  it("refuses a stored a2a.task with UnsupportedOperationError and sends its agent nothing", async () => {
    const { requests, error } = await requestsDuring(async () =>
      a2aRunner({ agentUrl: server.agentUrl("echo") }).run(await storedTask()),
    );
    expect(requests).toBe(0);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ type: "a2a.task", capability: "runs by a2aRunner" });
  });

  it.each([
    [{ systemPrompt: "Be brief." }, ["systemPrompt"]],
    [{ model: "gpt-test", temperature: 0 }, ["model", "temperature"]],
    [{ maxInputTokens: 1000 }, ["maxInputTokens"]],
    [{ imageCapabilityNeeded: true }, ["imageCapabilityNeeded"]],
  ] as Array<[RunConfig, string[]]>)(
    "refuses the run setting(s) of %j before sending the message",
    async (config, settings) => {
      const thread = await store.create();
      await thread.append({ role: "user", text: "one" });
      const { requests, error } = await requestsDuring(() =>
        a2aRunner({ agentUrl: server.agentUrl("echo") }).run(thread, { config }),
      );
      expect(requests).toBe(0);
      expect(UnsupportedRunConfigError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ type: "memory", settings });
      expect((error as Error).message).toMatch(/^\[adapter-a2a\] .*an A2A agent owns its model/);
      expect((await thread.messages()).map(messageText)).toEqual(["one"]);
    },
  );

  it("refuses a provider's messages, which the agent would never be sent, before sending anything", async () => {
    const thread = await store.create();
    await thread.append({ role: "user", text: "hello" });
    const runner = withContextProviders(a2aRunner({ agentUrl: server.agentUrl("echo") }), [
      { name: "kb", invoking: () => ({ messages: [{ role: "user", text: "KNOWLEDGE BASE CONTEXT" }] }) },
    ]);
    const { requests, error } = await requestsDuring(() => runner.run(thread));
    expect(requests).toBe(0);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^\[adapter-a2a\] .*messages for one run by a2aRunner/);
    expect((await thread.messages()).map(messageText)).toEqual(["hello"]);
  });

  it("refuses settings on an a2a thread before reading the agent's reply", async () => {
    const agentUrl = server.agentUrl("echo");
    const thread = await store.create("a2a", { agentUrl });
    await thread.append({ role: "user", text: "hi" });
    const { requests, error } = await requestsDuring(() =>
      a2aRunner({ agentUrl }).run(thread, { config: { systemPrompt: "Be brief." } }),
    );
    expect(requests).toBe(0);
    expect(error).toMatchObject({ type: "a2a", settings: ["systemPrompt"] });
  });

  it("runs with settings that ask for nothing, and finds an a2a thread inside a wrapper", async () => {
    const agentUrl = server.agentUrl("echo");
    const local = await store.create();
    await local.append({ role: "user", text: "two" });
    const config = { tags: ["support"], imageCapabilityNeeded: false, parameters: {} } as RunConfig;
    expect((await a2aRunner({ agentUrl }).run(local, { config })).map(messageText)).toEqual([
      "TWO",
      "echo: two",
    ]);
    const thread = await store.create("a2a", { agentUrl });
    await thread.append({ role: "user", text: "three" });
    // thread-service hands runners a wrapper holding the real thread as `inner`.
    const wrapped = Object.assign(Object.create(null), {
      type: thread.type,
      id: thread.id,
      inner: thread,
      toJSON: () => thread.toJSON(),
    }) as Thread;
    const runner = a2aRunner({ agentUrl });
    expect(runner.supports(wrapped)).toBe(true);
    expect((await runner.run(wrapped)).map(messageText)).toEqual(
      (await (thread as A2aThread).lastReply()).map(messageText),
    );
  });
});

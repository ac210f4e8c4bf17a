import {
  messageText,
  openStore,
  ServiceUnavailableError,
  SkeinError,
  StoreUnavailableError,
  type ThreadStore,
} from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../scripts/redis-server.mjs";
import {
  A2aAdapterMissingError,
  A2aAgentError,
  A2aAgentUnavailableError,
  A2aCredentialError,
  A2aInvalidAgentUrlError,
  A2aTaskFailedError,
  A2aTaskNotFoundError,
  type A2aThread,
  a2aAdapter,
} from "../src/index.js";
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

describe("errors", () => {
  it("an agent nobody answers for is A2aAgentUnavailableError, retryable, with the cause", async () => {
    const port = await freePort();
    const thread = await store.create("a2a", { agentUrl: `http://127.0.0.1:${port}` });
    const error = await thread.append({ role: "user", text: "anyone?" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(A2aAgentUnavailableError);
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      source: "adapter-a2a",
      operation: "GetAgentCard",
      retryable: true,
      agentUrl: `http://127.0.0.1:${port}`,
    });
    expect((error as Error).message).toMatch(
      /^\[adapter-a2a\] Agent http:\/\/127\.0\.0\.1:\d+ is unavailable/,
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("a task the agent does not know is A2aTaskNotFoundError", async () => {
    const thread = await store.open({
      $type: "a2a",
      id: "lost-task",
      agentUrl: server.agentUrl("echo"),
      contextId: "ctx-lost",
      taskId: "no-such-task",
      taskState: "input-required",
    });
    const error = await thread.messages().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(A2aTaskNotFoundError);
    expect(error).toMatchObject({ taskId: "no-such-task", reason: "TASK_NOT_FOUND" });
    expect((error as Error).cause).toMatchObject({ reason: "TASK_NOT_FOUND" });
  });

  it("a protocol refusal is A2aAgentError with the agent's reason", async () => {
    const thread = (await store.create("a2a", { agentUrl: server.agentUrl("ask") })) as A2aThread;
    await thread.append({ role: "user", text: "hi" });
    const wrongContext = await store.open({
      ...thread.toJSON(),
      id: "wrong-context",
      contextId: "another-context",
    });
    const error = await wrongContext.append({ role: "user", text: "Ada" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(A2aAgentError);
    expect(error).toMatchObject({ reason: "INVALID_PARAMS" });
  });

  it("a task finished elsewhere is not continued: the message starts a new task", async () => {
    const thread = (await store.create("a2a", { agentUrl: server.agentUrl("ask") })) as A2aThread;
    await thread.append({ role: "user", text: "hi" });
    const stale = JSON.stringify(thread); // still says input-required
    await thread.append({ role: "user", text: "Ada" }); // finishes the task
    const elsewhere = await openStore("memory:", { adapters: [a2aAdapter()] });
    const behind = (await elsewhere.open(JSON.parse(stale))) as A2aThread;
    const reply = await behind.append({ role: "user", text: "hello again" });
    expect(reply.map(messageText)).toEqual(["hello again", "What is your name?"]);
    expect(behind.taskId).not.toBe(thread.taskId);
    expect(behind.taskState).toBe("input-required");
    expect(behind.toJSON().conversation).toEqual([{ taskId: thread.taskId }, { taskId: behind.taskId }]);
    await elsewhere.close();
  });

  it("an a2a thread without an a2a adapter reads as JSON but cannot reach its agent", async () => {
    const bare = await openStore("memory:"); // the type is registered process-wide by the other store
    const thread = await bare.open({
      $type: "a2a",
      id: "no-adapter",
      agentUrl: server.agentUrl("echo"),
      contextId: "ctx-no-adapter",
    });
    expect(JSON.parse(JSON.stringify(thread))).toMatchObject({ $type: "a2a", id: "no-adapter" });
    await expect(thread.append({ role: "user", text: "hi" })).rejects.toBeInstanceOf(A2aAdapterMissingError);
    await bare.close();
  });

  it("a state with a bad agent URL is an InvalidThreadStateError", async () => {
    await expect(store.create("a2a", { agentUrl: "not a url" })).rejects.toMatchObject({
      name: "InvalidThreadStateError",
    });
    await expect(store.create("a2a", { agentUrl: "ftp://agent.example" })).rejects.toMatchObject({
      name: "InvalidThreadStateError",
    });
  });

  it("creating an a2a thread under a taken id is ThreadExistsError", async () => {
    await store.create("a2a", { id: "taken", agentUrl: server.agentUrl("echo") });
    await expect(
      store.create("a2a", { id: "taken", agentUrl: server.agentUrl("echo") }),
    ).rejects.toMatchObject({
      name: "ThreadExistsError",
    });
  });
});

describe("agent URLs in errors", () => {
  const password = "hunter2-Passw0rd";
  const key = "k3y-abcdef123456";
  const agentUrl = `https://bob:${password}@agent.example/rpc?api_key=${key}&tenant=t1`;
  const leaks = (error: Error) =>
    [
      JSON.stringify(error),
      error.message,
      String(error.stack),
      String((error as { agentUrl?: string }).agentUrl),
    ]
      .join("\n")
      .match(new RegExp(`${password}|${key}`, "g")) ?? [];

  it("every error that names an agent keeps and prints its URL with the password and credential parameters masked", () => {
    const errors: Error[] = [
      new A2aAgentError(agentUrl, "INVALID_PARAMS", "no."),
      new A2aCredentialError(agentUrl, "UNAUTHENTICATED", "who?"),
      new A2aTaskNotFoundError(agentUrl, "task-1"),
      new A2aAgentUnavailableError(agentUrl, "down."),
      new A2aInvalidAgentUrlError(agentUrl),
      new A2aTaskFailedError(agentUrl, "task-1", "failed", []),
    ];
    for (const error of errors) {
      expect(leaks(error), error.name).toEqual([]);
      expect(error).toMatchObject({ agentUrl: "https://bob:***@agent.example/rpc?api_key=***&tenant=t1" });
      expect(error.message).toContain("https://bob:***@agent.example/rpc?api_key=***&tenant=t1");
    }
  });

  it("text that is not a URL keeps no password and no query", () => {
    const error = new A2aInvalidAgentUrlError(`bob:${password}@agent example?api_key=${key}`);
    expect(leaks(error)).toEqual([]);
    expect(error.agentUrl).toBe("bob:***@agent example");
  });

  it("a failed call to an agent whose URL holds credentials leaks none of them", async () => {
    const port = await freePort();
    const url = `http://bob:${password}@127.0.0.1:${port}/echo?api_key=${key}`;
    const thread = await store.create("a2a", { agentUrl: url });
    const error = (await thread
      .append({ role: "user", text: "anyone?" })
      .catch((caught: unknown) => caught)) as Error;
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(leaks(error)).toEqual([]);
    expect((error as { agentUrl?: string }).agentUrl).toBe(
      `http://bob:***@127.0.0.1:${port}/echo?api_key=***`,
    );
  });
});

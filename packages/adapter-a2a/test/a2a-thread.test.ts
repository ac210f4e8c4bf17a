import {
  type Message,
  messageText,
  openStore,
  type Thread,
  type ThreadStore,
  type WorkflowThread,
} from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2aThread, a2aAdapter } from "../src/index.js";
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

const texts = async (thread: Thread) => (await thread.messages()).map(messageText);
const create = (agent: "echo" | "ask" | "plain") => store.create("a2a", { agentUrl: server.agentUrl(agent) });

describe("a2a threads", () => {
  it("round-trips through JSON into a working thread, in this store or a fresh one", async () => {
    const thread = await create("echo");
    await thread.append({ role: "user", text: "hi" });
    const json = JSON.parse(JSON.stringify(thread));
    expect(json).toMatchObject({
      $type: "a2a",
      agentUrl: server.agentUrl("echo"),
      contextId: expect.any(String),
      taskId: expect.any(String),
      taskState: "completed",
    });

    const elsewhere = await openStore("memory:", { adapters: [a2aAdapter()] });
    const again = await elsewhere.open(JSON.parse(JSON.stringify(thread)));
    expect(again).toBeInstanceOf(A2aThread);
    expect(await again.messages()).toEqual(await thread.messages());
    await again.append({ role: "user", text: "again" });
    expect(await texts(again)).toEqual(["hi", "echo: hi", "HI", "again", "echo: again", "AGAIN"]);
    expect(JSON.parse(JSON.stringify(again)).contextId).toBe(json.contextId);
    await elsewhere.close();
  });

  it("continues the task over two turns while the agent waits for input", async () => {
    const thread = (await create("ask")) as A2aThread;
    const first = await thread.append({ role: "user", text: "hi" });
    expect(first.map(messageText)).toEqual(["hi", "What is your name?"]);
    expect(thread.taskState).toBe("input-required");
    const taskId = thread.taskId;

    const second = await thread.append({ role: "user", text: "Ada" });
    expect(second.map(messageText)).toEqual(["Ada", "Hello, Ada!"]);
    expect(thread.taskId).toBe(taskId);
    expect(thread.taskState).toBe("completed");
    expect(await texts(thread)).toEqual(["hi", "What is your name?", "Ada", "Hello, Ada!"]);
    expect(thread.toJSON().conversation).toEqual([{ taskId }]);
  });

  it("starts a new task in the same context once the task is terminal", async () => {
    const thread = (await create("echo")) as A2aThread;
    await thread.append({ role: "user", text: "one" });
    const firstTask = thread.taskId;
    const contextId = thread.contextId;
    await thread.append({ role: "user", text: "two" });
    expect(thread.taskId).not.toBe(firstTask);
    expect(thread.contextId).toBe(contextId);
    expect(thread.toJSON().conversation).toEqual([{ taskId: firstTask }, { taskId: thread.taskId }]);
    expect(await texts(thread)).toEqual(["one", "echo: one", "ONE", "two", "echo: two", "TWO"]);
  });

  it("reads the conversation in pages: last, after, limit", async () => {
    const thread = await create("echo");
    for (const text of ["a", "b", "c"]) await thread.append({ role: "user", text });
    const all = await thread.messages();
    expect(all).toHaveLength(9);
    expect((await thread.messages({ last: 2 })).map(messageText)).toEqual(["echo: c", "C"]);
    const afterFirstReply = { after: all[1]?.id as string };
    expect((await thread.messages({ ...afterFirstReply, limit: 2 })).map(messageText)).toEqual(["A", "b"]);
    expect((await thread.messages({ ...afterFirstReply, last: 1 })).map(messageText)).toEqual(["C"]);
    expect((await thread.messages({ limit: 4 })).map(messageText)).toEqual(["a", "echo: a", "A", "b"]);
    await expect(thread.messages({ after: "no-such-message" })).rejects.toMatchObject({
      name: "PointNotFoundError",
    });
    expect((await thread.view({ maxMessages: 2 })).map(messageText)).toEqual(["echo: c", "C"]);
  });

  it("pages backwards with { before, limit } across tasks, as local threads do", async () => {
    const thread = await create("echo");
    for (const text of ["a", "b", "c"]) await thread.append({ role: "user", text });
    const all = await thread.messages();
    const texts = (messages: Message[]) => messages.map(messageText);
    expect(texts(all)).toEqual(["a", "echo: a", "A", "b", "echo: b", "B", "c", "echo: c", "C"]);
    expect(texts(await thread.messages({ before: all[7]?.id as string, limit: 3 }))).toEqual([
      "echo: b",
      "B",
      "c",
    ]);
    expect(texts(await thread.messages({ before: all[4]?.id as string }))).toEqual([
      "a",
      "echo: a",
      "A",
      "b",
    ]);
    expect(texts(await thread.messages({ before: all[4]?.id as string, last: 1 }))).toEqual(["b"]);
    expect(await thread.messages({ before: all[0]?.id as string })).toEqual([]);
    const between = { after: all[1]?.id as string, before: all[6]?.id as string };
    expect(texts(await thread.messages({ ...between, limit: 2 }))).toEqual(["A", "b"]);
    expect(texts(await thread.messages({ ...between, last: 2 }))).toEqual(["echo: b", "B"]);
    expect(await thread.messages({ after: all[6]?.id as string, before: all[1]?.id as string })).toEqual([]);
    await expect(thread.messages({ before: "no-such-message" })).rejects.toMatchObject({
      name: "PointNotFoundError",
    });
    await expect(thread.messages({ before: "no-such-message", limit: 0 })).rejects.toMatchObject({
      name: "PointNotFoundError",
    });
    await expect(
      thread.messages({ after: "no-such-message", before: all[6]?.id as string }),
    ).rejects.toMatchObject({ name: "PointNotFoundError" });
  });

  it("keeps its state in the store as it changes, and delete forgets only that", async () => {
    const thread = (await create("ask")) as A2aThread;
    await thread.append({ role: "user", text: "hi" });
    const stored = (await store.get(thread.id)) as A2aThread;
    expect(stored.taskId).toBe(thread.taskId);
    expect(stored.revision).toBe(thread.revision);
    await thread.update({ metadata: { topic: "names" } });
    expect((await store.get(thread.id)).metadata).toEqual({ topic: "names" });
    const json = JSON.stringify(thread);
    await thread.delete();
    await expect(store.get(thread.id)).rejects.toMatchObject({ name: "ThreadNotFoundError" });
    // The agent still has the task: A2A has no delete.
    const revived = await store.open(JSON.parse(json));
    expect(await texts(revived)).toEqual(["hi", "What is your name?"]);
  });

  it("prefers the store's newer copy to an older state embedded elsewhere, as in a workflow", async () => {
    const workflow = (await store.create("workflow", {})) as WorkflowThread;
    const agent = await workflow.addThread("agent", {
      type: "a2a",
      options: { agentUrl: server.agentUrl("ask") },
    });
    await agent.append({ role: "user", text: "hi" }); // saved under the sub-thread's id, not in the workflow
    const reread = (await store.get(workflow.id)) as WorkflowThread;
    expect(reread.thread("agent")).toBeInstanceOf(A2aThread);
    await reread.thread("agent").append({ role: "user", text: "Bo" });
    expect(await texts(reread.thread("agent"))).toEqual(["hi", "What is your name?", "Bo", "Hello, Bo!"]);
  });

  it("lands concurrent turns from two copies of one thread, each once", async () => {
    const thread = await create("echo");
    const [one, two] = await Promise.all([store.get(thread.id), store.get(thread.id)]);
    await Promise.all([
      (one as Thread).append({ role: "user", text: "left" }),
      (two as Thread).append({ role: "user", text: "right" }),
    ]);
    const merged = (await store.get(thread.id)) as A2aThread;
    expect(merged.toJSON().conversation).toHaveLength(2);
    expect((await texts(merged)).filter((text) => text === "left" || text === "right").sort()).toEqual([
      "left",
      "right",
    ]);
  });

  it("treats a re-sent message id as a no-op, and other content under it as a conflict", async () => {
    const thread = await create("echo");
    const [sent] = await thread.append({ id: "m-1", role: "user", text: "once" });
    const again = await thread.append({ id: "m-1", role: "user", text: "once" });
    expect(again).toEqual([sent]);
    await expect(thread.append({ id: "m-1", role: "user", text: "changed" })).rejects.toMatchObject({
      name: "ConflictError",
    });
    expect(await texts(thread)).toEqual(["once", "echo: once", "ONCE"]);
  });

  it("fails with ConcurrencyError, sending nothing, when ifRevision is stale", async () => {
    const thread = await create("echo");
    await thread.append({ role: "user", text: "first" });
    const stale = (thread.revision as number) - 1;
    await expect(
      thread.append({ role: "user", text: "second" }, { ifRevision: stale }),
    ).rejects.toMatchObject({
      name: "ConcurrencyError",
    });
    await thread.append({ role: "user", text: "second" }, { ifRevision: thread.revision as number });
    expect(await texts(thread)).toEqual([
      "first",
      "echo: first",
      "FIRST",
      "second",
      "echo: second",
      "SECOND",
    ]);
  });

  it("keeps plain-message answers, which the agent does not record, in its state", async () => {
    const thread = await create("plain");
    const appended = await thread.append({ role: "user", text: "hello" });
    expect(appended.map(messageText)).toEqual(["hello", "plain: hello"]);
    expect(await texts(thread)).toEqual(["hello", "plain: hello"]);
    const reopened = await store.open(JSON.parse(JSON.stringify(thread)));
    expect(await reopened.messages()).toEqual(await thread.messages());
  });

  it("round-trips every kind of content the user sends", async () => {
    const thread = await create("echo");
    const contents = [
      { type: "text", text: "look" },
      {
        type: "data",
        mediaType: "image/png",
        data: Buffer.from("png bytes").toString("base64"),
        name: "a.png",
      },
      { type: "uri", uri: "https://example.com/a.pdf", mediaType: "application/pdf" },
      { type: "function_call", callId: "call-1", name: "weather", arguments: { city: "Paris" } },
      { type: "text", text: "with a twist", mediaType: "text/plain" },
      { type: "acme.custom", payload: { deep: [1, 2] } },
    ];
    const [sent] = await thread.append({ role: "user", contents, authorName: "ada", metadata: { tag: 1 } });
    const [read] = await thread.messages({ limit: 1 });
    expect(read).toEqual(sent);
    expect(read?.contents).toEqual(contents);
  });

  it("sends only user messages, one at a time, and cannot fork", async () => {
    const thread = await create("echo");
    expect(thread.capabilities.fork).toBe("none");
    await expect(thread.append({ role: "assistant", text: "no" })).rejects.toMatchObject({
      name: "UnsupportedOperationError",
      capability: "appending assistant messages",
    });
    await expect(
      thread.append([
        { role: "user", text: "one" },
        { role: "user", text: "two" },
      ]),
    ).rejects.toMatchObject({ name: "UnsupportedOperationError" });
    const refusal = await thread.fork().catch((error: Error) => error);
    expect(refusal).toMatchObject({ name: "UnsupportedOperationError", type: "a2a", capability: "fork" });
    expect((refusal as Error).message).toMatch(/^\[adapter-a2a\] /);
    // An agent records no operations: a retry would run the turn again, so operation ids are refused.
    await expect(thread.append({ role: "user", text: "x" }, { operationId: "op-1" })).rejects.toMatchObject({
      name: "UnsupportedOperationError",
      capability: "operationId",
    });
    await expect(thread.rollback("start")).rejects.toMatchObject({ capability: "rollback" });
    await expect(thread.at("start")).rejects.toMatchObject({ name: "UnsupportedOperationError" });
    expect(await thread.messages()).toEqual([]);
  });
});

import { messageText, openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2aTaskFailedError, a2aAdapter, a2aRunner } from "../src/index.js";
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

describe("a2aRunner", () => {
  it("lets a local thread talk to a remote agent and keep its own copy", async () => {
    const agentUrl = server.agentUrl("ask");
    const runner = a2aRunner({ agentUrl });
    const thread = await store.create({ metadata: { user: "u-1" } });
    await thread.append({ role: "user", text: "hi" });

    const asked = await runner.run(thread);
    expect(asked.map(messageText)).toEqual(["What is your name?"]);
    const link = (thread.context.a2a as Record<string, Record<string, unknown>>)[agentUrl];
    expect(link).toMatchObject({ contextId: expect.any(String), taskState: "input-required" });

    expect(await runner.run(thread)).toEqual([]); // nothing new to send
    await thread.append({ role: "user", text: "Ada" });
    const greeted = await runner.run(thread);
    expect(greeted.map(messageText)).toEqual(["Hello, Ada!"]);
    expect(await texts(thread)).toEqual(["hi", "What is your name?", "Ada", "Hello, Ada!"]);
    const after = (thread.context.a2a as Record<string, Record<string, unknown>>)[agentUrl];
    expect(after).toMatchObject({ contextId: link?.contextId, taskId: link?.taskId, taskState: "completed" });

    // The agent's side of the same conversation, read as an a2a thread, matches the local copy.
    const remote = await store.open({ $type: "a2a", id: "remote-view", ...pick(after) });
    expect((await remote.messages()).map((message) => message.id)).toEqual(
      (await thread.messages()).map((message) => message.id),
    );
  });

  it("appends status messages and artifacts, and starts a new task after a terminal one", async () => {
    const runner = a2aRunner({ agentUrl: server.agentUrl("echo") });
    const thread = await store.create();
    await thread.append({ role: "user", text: "one" });
    expect((await runner.run(thread)).map(messageText)).toEqual(["ONE", "echo: one"]);
    await thread.append({ role: "user", text: "two" });
    expect((await runner.run(thread)).map(messageText)).toEqual(["TWO", "echo: two"]);
    const links = thread.context.a2a as Record<string, { taskId: string; contextId: string }>;
    expect(Object.keys(links)).toEqual([server.agentUrl("echo")]);
    expect(await texts(thread)).toEqual(["one", "ONE", "echo: one", "two", "TWO", "echo: two"]);
  });

  it("reads the whole reply from one answer when the agent does not stream", async () => {
    const thread = await store.create();
    await thread.append({ role: "user", text: "flat" });
    const reply = await a2aRunner({ agentUrl: server.agentUrl("unstreamed") }).run(thread);
    expect(reply.map(messageText)).toEqual(["echo: flat", "FLAT"]);
    expect(await texts(thread)).toEqual(["flat", "echo: flat", "FLAT"]);
  });

  it("keeps its copy in a file store too", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const directory = await mkdtemp(join(tmpdir(), "skein-a2a-runner-"));
    const files = await openStore(`file:${directory}`, { adapters: [a2aAdapter()] });
    try {
      const thread = await files.create();
      await thread.append({ role: "user", text: "disk" });
      await a2aRunner({ agentUrl: server.agentUrl("echo") }).run(thread);
      const reread = await files.get(thread.id);
      expect(await texts(reread)).toEqual(["disk", "DISK", "echo: disk"]);
    } finally {
      await files.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("returns the reply an a2a thread already got when its message was appended", async () => {
    const agentUrl = server.agentUrl("ask");
    const thread = await store.create("a2a", { agentUrl });
    await thread.append({ role: "user", text: "hi" });
    expect((await a2aRunner({ agentUrl }).run(thread)).map(messageText)).toEqual(["What is your name?"]);
    await expect(a2aRunner({ agentUrl: server.agentUrl("echo") }).run(thread)).rejects.toMatchObject({
      name: "UnsupportedOperationError",
    });
  });

  it("appends a failed task's reply, then throws A2aTaskFailedError", async () => {
    const thread = await store.create();
    await thread.append({ role: "user", text: "break" });
    // The SDK's server logs the executor's exception; it is the point of this case, so keep it quiet.
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const failure = await a2aRunner({ agentUrl: server.agentUrl("fail") })
      .run(thread)
      .catch((error: unknown) => error)
      .finally(() => log.mockRestore());
    expect(failure).toBeInstanceOf(A2aTaskFailedError);
    expect((failure as A2aTaskFailedError).state).toBe("failed");
    expect((failure as A2aTaskFailedError).messages.map(messageText)).toEqual([
      "Agent execution error: the agent broke",
    ]);
    expect(await texts(thread)).toEqual(["break", "Agent execution error: the agent broke"]);
  });

  it("stops at once, appending nothing, when its signal is aborted", async () => {
    const thread = await store.create();
    await thread.append({ role: "user", text: "never" });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const runner = a2aRunner({ agentUrl: server.agentUrl("echo") });
    await expect(runner.run(thread, { signal: controller.signal })).rejects.toThrow("stop");
    expect(await texts(thread)).toEqual(["never"]);
  });

  it("refuses an agent URL that is not http(s)", () => {
    expect(() => a2aRunner({ agentUrl: "ftp://agent" })).toThrow(/^\[adapter-a2a\] /);
  });
});

function pick(link: Record<string, unknown> | undefined) {
  return { agentUrl: server.agentUrl("ask"), contextId: link?.contextId, taskId: link?.taskId };
}

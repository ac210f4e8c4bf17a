import { a2aAdapter, a2aRunner } from "@skein/adapter-a2a";
import {
  MessageTooLargeError,
  openStore,
  type RunConfig,
  type Thread,
  UnsupportedOperationError,
  UnsupportedRunConfigError,
  type WorkflowThread,
  withContextProviders,
} from "@skein/thread-core";
import { isServiceThread } from "@skein/thread-core/driver";
import { describe, expect, test } from "vitest";
import {
  type FoundryAgentThread,
  FoundryConfigurationError,
  type FoundryConversationThread,
  foundryRunner,
} from "../src/index.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

/** About 4 characters a token: this text is about 250 tokens. */
const LONG_TEXT = "a long message ".repeat(66);

/** What `task` threw; fails if it resolved. */
async function caught(task: Promise<unknown>): Promise<unknown> {
  return task.then(
    () => {
      throw new Error("expected the run to fail");
    },
    (error: unknown) => error,
  );
}

/** Requests the emulator saw while `task` ran (all, and those that would run an agent), and what it threw. */
async function requestsDuring(task: () => Promise<unknown>) {
  const since = fixture.emulator.http.requests.length;
  const error = await caught(task());
  const requests = fixture.emulator.http.requests.slice(since);
  const runs = requests.filter(
    (request) =>
      request.method === "POST" && (request.path.endsWith("/responses") || request.path.endsWith("/runs")),
  );
  return { requests: requests.length, runs: runs.length, error };
}

/** A real `a2a` thread, bound by the a2a adapter beside the Foundry one; its agent is never reached here. */
async function a2aThread(): Promise<Thread> {
  const store = await openStore("memory:", { adapters: [a2aAdapter(), fixture.adapter()] });
  return store.open({
    $type: "a2a",
    id: "agent-chat",
    agentUrl: "http://127.0.0.1:9/agent",
    contextId: "ctx-1",
  });
}

function viewRunner() {
  return foundryRunner({ adapter: fixture.adapter(), agentName: "echo" });
}

describe("foundryRunner.supports and refusals before any request", () => {
  test("serves Foundry threads, and local ones given an adapter and an agent; not another service's", async () => {
    const store = await fixture.store();
    const conversation = await store.create("foundry.conversation", { agentName: "echo" });
    const classic = await store.create("foundry.thread", { agentId: "asst_echo" });
    const local = await store.create();
    expect(foundryRunner().supports(conversation)).toBe(true);
    expect(foundryRunner().supports(classic)).toBe(true);
    expect(foundryRunner().supports(local)).toBe(false); // nothing to run the agent with
    expect(viewRunner().supports(local)).toBe(true);
    expect(viewRunner().supports(await a2aThread())).toBe(false);
    const workflow = (await store.create("workflow", { threads: [] })) as WorkflowThread;
    expect(viewRunner().supports(workflow)).toBe(false); // no main sub-thread to run as
  });

  test("Foundry threads name Foundry as their history's service, so another service's runner refuses them", async () => {
    const store = await fixture.store();
    const conversation = await store.create("foundry.conversation", { agentName: "echo" });
    const classic = await store.create("foundry.thread", { agentId: "asst_echo" });
    for (const thread of [conversation, classic]) {
      expect(thread).toMatchObject({ historyService: "foundry" });
      expect(isServiceThread(thread)).toBe(true);
      expect(a2aRunner({ agentUrl: "http://127.0.0.1:9/agent" }).supports(thread)).toBe(false);
    }
  });

  test("refuses an a2a thread with UnsupportedOperationError and makes no request", async () => {
    const thread = await a2aThread();
    const { requests, error } = await requestsDuring(() => viewRunner().run(thread));
    expect(requests).toBe(0);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ type: "a2a", capability: "runs by foundryRunner" });
  });

  test("runs a workflow's foundry.conversation main sub-thread in its conversation", async () => {
    const store = await fixture.store();
    const workflow = (await store.create("workflow", { threads: [] })) as WorkflowThread;
    const main = (await workflow.addThread("main", {
      type: "foundry.conversation",
      options: { agentName: "echo" },
    })) as FoundryConversationThread;
    await workflow.append({ role: "user", text: "hello" });
    expect(foundryRunner().supports(workflow)).toBe(true);
    const [reply] = await foundryRunner().run(workflow);
    expect(reply?.contents).toEqual([{ type: "text", text: "echo: hello" }]);
    const request = fixture.emulator.http.requests
      .filter((each) => each.path === "/openai/v1/responses")
      .at(-1);
    expect(request?.body).toMatchObject({ conversation: main.conversationId });
  });

  test("refuses maxInputTokens on foundry.conversation as a setting, naming it and the type", async () => {
    const store = await fixture.store();
    const thread = await store.create("foundry.conversation", { agentName: "echo" });
    await thread.append({ role: "user", text: "hello" });
    const { requests, error } = await requestsDuring(() =>
      foundryRunner().run(thread, { config: { maxInputTokens: 1000 } }),
    );
    expect(requests).toBe(0);
    expect(UnsupportedRunConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ type: "foundry.conversation", settings: ["maxInputTokens"] });
    // Settings that ask for nothing are no reason to refuse.
    const config = { tags: ["support"], imageCapabilityNeeded: false, parameters: {} } as RunConfig;
    expect(await foundryRunner().run(thread, { config })).toHaveLength(1);
  });

  test("refuses a new local message larger than maxInputTokens before the agent is asked", async () => {
    const store = await fixture.store();
    const local = await store.create();
    await local.append([
      { role: "system", text: "Be brief." },
      { role: "user", text: LONG_TEXT },
    ]);
    const [newest] = await local.messages({ last: 1 });
    const { requests, error } = await requestsDuring(() =>
      viewRunner().run(local, { config: { maxInputTokens: 100 } }),
    );
    expect(requests).toBe(0);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ messageId: newest?.id, maxInputTokens: 100 });
    expect((error as Error).message).toMatch(
      /^\[adapter-foundry\] Message .* more than maxInputTokens \(100\)/,
    );
    expect(await viewRunner().run(local, { config: { maxInputTokens: 1000 } })).toHaveLength(1);
  });

  test("refuses a new foundry.thread message larger than maxInputTokens before a run is created", async () => {
    const store = await fixture.store();
    const thread = (await store.create("foundry.thread", { agentId: "asst_echo" })) as FoundryAgentThread;
    await thread.append({ role: "user", text: LONG_TEXT });
    const { runs, error } = await requestsDuring(() =>
      foundryRunner().run(thread, { config: { maxInputTokens: 100 } }),
    );
    expect(runs).toBe(0);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(fixture.emulator.agents.threads.get(thread.threadId)?.runs ?? []).toHaveLength(0);
    // Within budget, the run carries it as max_prompt_tokens.
    await foundryRunner().run(thread, { config: { maxInputTokens: 1000 } });
    expect(fixture.emulator.agents.threads.get(thread.threadId)?.runs[0]).toMatchObject({
      max_prompt_tokens: 1000,
    });
  });

  test("refuses a new local tool result that does not fit maxInputTokens with its call", async () => {
    const store = await fixture.store();
    const local = await store.create();
    await local.append([
      { role: "system", text: "Be brief." },
      { role: "user", text: "search for it" },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "c1", name: "search", arguments: {} }],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "c1", result: LONG_TEXT }] },
    ]);
    const [result] = await local.messages({ last: 1 });
    const { requests, error } = await requestsDuring(() =>
      viewRunner().run(local, { config: { maxInputTokens: 100 } }),
    );
    expect(requests).toBe(0);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ messageId: result?.id, maxInputTokens: 100 });
  });

  test("does not refuse a foundry.thread whose newest message is the agent's own, however long", async () => {
    const store = await fixture.store();
    const thread = (await store.create("foundry.thread", { agentId: "asst_echo" })) as FoundryAgentThread;
    await thread.append([
      { role: "user", text: "hello" },
      { role: "assistant", text: LONG_TEXT },
    ]);
    await foundryRunner().run(thread, { config: { maxInputTokens: 100 } });
    expect(fixture.emulator.agents.threads.get(thread.threadId)?.runs[0]).toMatchObject({
      max_prompt_tokens: 100,
    });
  });

  test("refuses a provider's messages on foundry.conversation, whose agent reads only Foundry's thread", async () => {
    const store = await fixture.store();
    const thread = await store.create("foundry.conversation", { agentName: "echo" });
    await thread.append({ role: "user", text: "hello" });
    const withKnowledge = withContextProviders(foundryRunner(), [
      { name: "kb", invoking: () => ({ messages: [{ role: "user", text: "KNOWLEDGE BASE CONTEXT" }] }) },
    ]);
    const { runs, error } = await requestsDuring(() => withKnowledge.run(thread));
    expect(runs).toBe(0);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/messages for one run by foundryRunner/);
  });

  test("a runner without the adapter and agent it needs says so before any request", async () => {
    const store = await fixture.store();
    const local = await store.create();
    await local.append({ role: "user", text: "hello" });
    const { requests, error } = await requestsDuring(() => foundryRunner().run(local));
    expect(requests).toBe(0);
    expect(FoundryConfigurationError.isInstance(error)).toBe(true);
  });
});

import { a2aAdapter, a2aRunner } from "@skein/adapter-a2a";
import {
  createRegistry,
  defineThreadType,
  MessageTooLargeError,
  openStore,
  type RunConfig,
  type Thread,
  ThreadStateSchema,
  type ThreadStore,
  UnsupportedOperationError,
  UnsupportedRunConfigError,
  type WorkflowThread,
  withContextProviders,
} from "@skein/thread-core";
import { isServiceThread, PlainStateThread } from "@skein/thread-core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiAdapter, openaiRunner } from "../src/index.js";
import { caught, countRequests, type Harness, startHarness } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function runner() {
  return openaiRunner({ client: harness.client, model: "gpt-test" });
}

/** A real `a2a` thread, bound by the a2a adapter; nothing is sent to its agent unless a message is appended. */
async function a2aThread(): Promise<Thread> {
  const store = await openStore("memory:", {
    adapters: [a2aAdapter(), openaiAdapter({ client: harness.client })],
  });
  return store.open({
    $type: "a2a",
    id: "agent-chat",
    agentUrl: "http://127.0.0.1:9/agent",
    contextId: "ctx-1",
  });
}

/** About 4 characters a token: this text is about 250 tokens. */
const LONG_TEXT = "a long message ".repeat(66);

describe("openaiRunner.supports and refusals before any request", () => {
  it("serves local and openai.* threads and workflows of them, not another service's threads", async () => {
    const workflow = (await harness.store.create("workflow", { threads: [] })) as WorkflowThread;
    expect(runner().supports(workflow)).toBe(false); // no main sub-thread to run as
    await workflow.addThread("main", { type: "openai.responses" });
    expect(runner().supports(workflow)).toBe(true);
    expect(runner().supports(await harness.store.create())).toBe(true);
    expect(runner().supports(await harness.store.create("openai.conversation"))).toBe(true);
    expect(runner().supports(await harness.store.create("openai.responses"))).toBe(true);
    expect(runner().supports(await a2aThread())).toBe(false);
  });

  it("refuses an a2a thread with UnsupportedOperationError and makes no request", async () => {
    const thread = await a2aThread();
    let error: unknown;
    const requests = await countRequests(harness, async () => {
      error = await caught(runner().run(thread));
    });
    expect(requests).toBe(0);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ type: "a2a", capability: "runs by openaiRunner" });
  });

  it.each(["openai.conversation", "openai.responses"])(
    "%s threads name OpenAI as their history's service, so another service's runner refuses them",
    async (type) => {
      const thread = await harness.store.create(type);
      expect(thread).toMatchObject({ historyService: "openai" });
      expect(isServiceThread(thread)).toBe(true);
      expect(a2aRunner({ agentUrl: "http://127.0.0.1:9/agent" }).supports(thread)).toBe(false);
    },
  );

  it("refuses a third-party type that names its history's service just as it refuses a built-in one", async () => {
    // A type of the application's own, bound to a thread that declares where its history lives, exactly as
    // skein's remote types declare theirs: no list in core tells the two apart.
    const remoteType = defineThreadType({
      type: "acme.remote",
      schema: ThreadStateSchema,
      bind: (state, environment) =>
        Object.assign(new PlainStateThread(state, environment.store as ThreadStore), {
          historyService: "acme",
        }),
    });
    const registry = createRegistry().register(remoteType);
    const store = await openStore("memory:", { registry });
    const thirdParty = await store.open({ $type: "acme.remote", id: "acme-1" });
    expect(runner().supports(thirdParty)).toBe(false);
    expect(runner().supports(await a2aThread())).toBe(false);
    let error: unknown;
    const requests = await countRequests(harness, async () => {
      error = await caught(runner().run(thirdParty));
    });
    expect(requests).toBe(0);
    const builtIn = await caught(runner().run(await a2aThread()));
    expect(error).toMatchObject({ type: "acme.remote", capability: "runs by openaiRunner" });
    expect((error as Error).message.replace("acme.remote", "a2a")).toBe((builtIn as Error).message);
  });

  it.each(["openai.conversation", "openai.responses"])(
    "turns maxInputTokens on %s into the service's compaction threshold",
    async (type) => {
      const thread = await harness.store.create(type);
      await thread.append({ role: "user", text: "hello" });
      await runner().run(thread, { config: { maxInputTokens: 500 } });
      const body = harness.emulator.requestsTo("responses.create")[0]?.body;
      expect(body?.context_management).toEqual([{ type: "compaction", compact_threshold: 500 }]);
      // The caller's own context management (or truncation) in parameters is left as it is.
      await thread.append({ role: "user", text: "again" });
      await runner().run(thread, {
        config: { maxInputTokens: 500, parameters: { context_management: null, truncation: "auto" } },
      });
      const second = harness.emulator.requestsTo("responses.create")[1]?.body;
      expect(second).toMatchObject({ context_management: null, truncation: "auto" });
    },
  );

  it("cuts a local thread's view to maxInputTokens and sends no context_management", async () => {
    const thread = await harness.store.create();
    await thread.append([
      { role: "user", text: LONG_TEXT },
      { role: "assistant", text: "ok" },
      { role: "user", text: "short" },
    ]);
    await runner().run(thread, { config: { maxInputTokens: 100 } });
    const body = harness.emulator.requestsTo("responses.create")[0]?.body;
    expect(body?.input).toHaveLength(2);
    expect(body?.context_management).toBeUndefined();
  });

  it.each(["memory", "openai.responses", "openai.conversation"])(
    "refuses a new %s message larger than maxInputTokens before asking the model",
    async (type) => {
      const thread = type === "memory" ? await harness.store.create() : await harness.store.create(type);
      await thread.append([
        { role: "system", text: "Be brief." },
        { role: "user", text: LONG_TEXT },
      ]);
      const [newest] = await thread.messages({ last: 1 });
      const error = await caught(runner().run(thread, { config: { maxInputTokens: 100 } }));
      expect(MessageTooLargeError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ messageId: newest?.id, maxInputTokens: 100, threadId: thread.id });
      expect((error as MessageTooLargeError).tokens).toBeGreaterThan(100);
      expect(error.message).toMatch(/^\[adapter-openai\] Message .* more than maxInputTokens \(100\)/);
      expect(harness.emulator.requestsTo("responses.create")).toHaveLength(0);
      // Within budget, the same thread runs.
      expect(await runner().run(thread, { config: { maxInputTokens: 1000 } })).toHaveLength(1);
    },
  );

  it("sends a truncation of the caller's own instead of compaction", async () => {
    const thread = await harness.store.create("openai.conversation");
    await thread.append({ role: "user", text: "hello" });
    await runner().run(thread, { config: { maxInputTokens: 500, parameters: { truncation: "auto" } } });
    const body = harness.emulator.requestsTo("responses.create")[0]?.body;
    expect(body?.truncation).toBe("auto");
    expect(body?.context_management).toBeUndefined();
  });

  it("refuses a new tool result that does not fit maxInputTokens with its call, rather than send no input", async () => {
    const thread = await harness.store.create();
    await thread.append([
      { role: "system", text: "Be brief." },
      { role: "user", text: "search for it" },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "c1", name: "search", arguments: {} }],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "c1", result: LONG_TEXT }] },
    ]);
    const [result] = await thread.messages({ last: 1 });
    const error = await caught(runner().run(thread, { config: { maxInputTokens: 100 } }));
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ messageId: result?.id, maxInputTokens: 100 });
    expect((error as MessageTooLargeError).tokens).toBeGreaterThan(100);
    expect(harness.emulator.requestsTo("responses.create")).toHaveLength(0);
  });

  it("refuses a provider's messages on an openai.conversation, which reads only its own history", async () => {
    const thread = await harness.store.create("openai.conversation");
    await thread.append({ role: "user", text: "hello" });
    const withKnowledge = withContextProviders(runner(), [
      { name: "kb", invoking: () => ({ messages: [{ role: "user", text: "KNOWLEDGE BASE CONTEXT" }] }) },
    ]);
    const error = await caught(withKnowledge.run(thread));
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/messages for one run by openaiRunner/);
    expect(harness.emulator.requestsTo("responses.create")).toHaveLength(0);
    // On a local thread the provider's messages are sent in the view.
    const local = await harness.store.create();
    await local.append({ role: "user", text: "hello" });
    await withKnowledge.run(local);
    expect(JSON.stringify(harness.emulator.requestsTo("responses.create")[0]?.body)).toContain(
      "KNOWLEDGE BASE CONTEXT",
    );
  });

  it("refuses embeddingOutputNeeded, and a setting it does not know, before any request", async () => {
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "hello" });
    for (const config of [{ embeddingOutputNeeded: true }, { maxTime: 5 }] as unknown as RunConfig[]) {
      let error: unknown;
      expect(
        await countRequests(harness, async () => {
          error = await caught(runner().run(thread, { config }));
        }),
      ).toBe(0);
      expect(UnsupportedRunConfigError.isInstance(error)).toBe(true);
      expect(UnsupportedOperationError.isInstance(error)).toBe(true);
      expect((error as UnsupportedRunConfigError).settings).toEqual(Object.keys(config));
      expect(error).toMatchObject({ type: "memory" });
    }
    // Settings that ask for nothing are no reason to refuse.
    const config = { embeddingOutputNeeded: false, imageCapabilityNeeded: true, tags: ["a"] } as RunConfig;
    expect(await runner().run(thread, { config })).toHaveLength(1);
  });
});

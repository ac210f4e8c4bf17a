import { describe, expect, it } from "vitest";
import { MessageTooLargeError, UnsupportedOperationError } from "./errors.js";
import { estimateTokens } from "./local/view.js";
import type { Message } from "./message.js";
import {
  assertInputWithinBudget,
  assertViewWithinBudget,
  isServiceThread,
  requireServedTarget,
  runTarget,
  runTargetType,
  servedTarget,
  unhonouredSettings,
} from "./runner.js";
import { openStore } from "./store/open-store.js";
import type { Thread } from "./thread.js";
import type { WorkflowThread } from "./workflow/workflow-thread.js";

function message(id: string, role: Message["role"], text: string): Message {
  return { id, role, createdAt: "2026-11-23T00:00:00.000Z", contents: [{ type: "text", text }] };
}

describe("runTargetType", () => {
  it("is a thread's own type, and a workflow's main sub-thread's, through wrappers", async () => {
    const store = await openStore("memory:");
    expect(runTargetType(await store.create())).toBe("memory");
    const workflow = (await store.create("workflow", { threads: [] })) as WorkflowThread;
    expect(runTargetType(workflow)).toBeUndefined();
    await workflow.addThread("main");
    expect(runTargetType(workflow)).toBe("memory");
    // thread-service's wrapper holds the workflow as `inner`.
    expect(runTargetType({ type: "workflow", inner: workflow } as unknown as Thread)).toBe("memory");
  });

  it("never serialises a wrapper that hides its thread: no target", async () => {
    const store = await openStore("memory:");
    const workflow = (await store.create("workflow", { threads: ["main"] })) as WorkflowThread;
    let serialised = 0;
    const hiding = {
      type: "workflow",
      toJSON: () => {
        serialised++;
        return workflow.toJSON();
      },
    } as unknown as Thread;
    expect(runTargetType(hiding)).toBeUndefined();
    expect(serialised).toBe(0);
  });
});

describe("runTarget", () => {
  it("finds the thread with its behaviour through wrappers around a workflow around its main", async () => {
    const store = await openStore("memory:");
    const workflow = (await store.create("workflow", { threads: ["main"] })) as WorkflowThread;
    const main = workflow.thread("main");
    const fenced = { type: "workflow", inner: workflow } as unknown as Thread;
    const guarded = { type: "workflow", inner: fenced } as unknown as Thread;
    const target = runTarget(guarded);
    expect(target?.id).toBe(main.id);
    expect(typeof target?.append).toBe("function");
  });

  it("gives up on a cycle of wrappers", () => {
    const cycle = { type: "memory" } as { type: string; inner?: unknown };
    cycle.inner = cycle;
    expect(runTarget(cycle as unknown as Thread)).toBeUndefined();
  });
});

describe("servedTarget", () => {
  const reach = {
    runner: "testRunner",
    source: "adapter-test",
    serviceTypes: new Set(["test.remote"]),
    local: true,
  };

  it("serves the runner's own service types and local threads; refuses other services' before any request", async () => {
    const store = await openStore("memory:");
    const local = await store.create();
    expect(servedTarget(local, reach)).toBe(local);
    const own = { type: "test.remote" } as unknown as Thread;
    expect(servedTarget({ type: "test.remote", inner: own } as unknown as Thread, reach)).toBe(own);
    const openai = { type: "openai.conversation", historyService: "openai" } as unknown as Thread;
    expect(servedTarget(openai, reach)).toBeUndefined();
    const refusal = () => requireServedTarget(openai, reach);
    expect(refusal).toThrow(UnsupportedOperationError);
    expect(refusal).toThrow(
      /^\[adapter-test\] Thread type "openai.conversation" does not support runs by testRunner: its history lives with another service/,
    );
    expect(servedTarget(local, { ...reach, local: false })).toBeUndefined();
  });

  it("reads the service from the thread, never from a list of type ids in core", () => {
    // skein's own remote types declare `historyService` on their threads as a third-party type must: a thread
    // that names an OpenAI type but no service is judged as any other thread, and is served as a local one.
    const undeclared = { type: "openai.conversation" } as unknown as Thread;
    expect(isServiceThread(undeclared)).toBe(false);
    expect(servedTarget(undeclared, reach)).toBe(undeclared);
  });

  it("refuses a third-party type that declares the service keeping its history", () => {
    const thirdParty = { type: "acme.remote", historyService: "acme" } as unknown as Thread;
    expect(isServiceThread(thirdParty)).toBe(true);
    expect(servedTarget(thirdParty, reach)).toBeUndefined();
    expect(servedTarget(thirdParty, { ...reach, serviceTypes: new Set(["acme.remote"]) })).toBe(thirdParty);
  });
});

describe("unhonouredSettings", () => {
  it("lists settings that ask for something and are not honoured; never tags", () => {
    const config = {
      model: "m",
      temperature: 0,
      systemPrompt: undefined,
      parameters: {},
      tags: ["a"],
      imageCapabilityNeeded: false,
      embeddingOutputNeeded: true,
    };
    expect(unhonouredSettings(config, ["model"])).toEqual(["temperature", "embeddingOutputNeeded"]);
    expect(unhonouredSettings(undefined, [])).toEqual([]);
  });
});

describe("assertInputWithinBudget", () => {
  it("refuses input over budget, naming its newest non-system message", () => {
    const input = [message("s", "system", "x".repeat(40)), message("u", "user", "y".repeat(40))];
    expect(() => assertInputWithinBudget("t", input, 28)).not.toThrow(); // 14 + 14 tokens
    const refusal = () => assertInputWithinBudget("t", input, 27, { source: "adapter-test" });
    expect(refusal).toThrow(MessageTooLargeError);
    expect(refusal).toThrow(/^\[adapter-test\] Message "u" of thread "t" needs about 28 tokens/);
    expect(() => assertInputWithinBudget("t", input, 10, { countTokens: () => 5 })).not.toThrow();
  });
});

describe("assertViewWithinBudget", () => {
  it("refuses a newest tool result the view cut with its call, naming it with the pair's tokens", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    await thread.append([
      { role: "system", text: "Be brief." },
      { role: "user", text: "search for it" },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "c1", name: "search", arguments: {} }],
      },
      {
        role: "tool",
        contents: [{ type: "function_result", callId: "c1", result: "a long message ".repeat(66) }],
      },
    ]);
    const view = await thread.view({ maxTokens: 100 });
    expect(view.map((message) => message.role)).toEqual(["system"]); // what would have been sent
    const refusal = await assertViewWithinBudget(thread, view, 100, { source: "adapter-test" }).catch(
      (error: unknown) => error,
    );
    expect(MessageTooLargeError.isInstance(refusal)).toBe(true);
    const [result] = await thread.messages({ last: 1 });
    const [call] = await thread.messages({ last: 2 });
    expect((refusal as MessageTooLargeError).messageId).toBe(result?.id);
    const expected =
      estimateTokens(view[0] as Message) +
      estimateTokens(call as Message) +
      estimateTokens(result as Message);
    expect((refusal as MessageTooLargeError).tokens).toBe(expected);
  });

  it("lets a view that holds the newest message through", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    await thread.append([
      { role: "user", text: "old ".repeat(200) },
      { role: "user", text: "new" },
    ]);
    const view = await thread.view({ maxTokens: 20 });
    await expect(assertViewWithinBudget(thread, view, 20)).resolves.toBeUndefined();
  });
});

import { UnsupportedOperationError } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import {
  FoundryAgentNotFoundError,
  FoundryConfigurationError,
  type FoundryConversationThread,
  FoundryNotFoundError,
  FoundryRunError,
  foundryRunner,
} from "../src/index.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

async function conversationFor(agentName: string, agentVersion?: string) {
  const store = await fixture.store();
  const thread = (await store.create("foundry.conversation", {
    agentName,
    ...(agentVersion ? { agentVersion } : {}),
    messages: [{ role: "user", text: "Weather in two cities?" }],
  })) as FoundryConversationThread;
  return { store, thread };
}

function lastResponseRequest() {
  return fixture.emulator.http.requests.filter((request) => request.path === "/openai/v1/responses").at(-1);
}

describe("foundryRunner on foundry.conversation", () => {
  test("asks the agent by reference, in the conversation, and returns the reply the service added", async () => {
    const { thread } = await conversationFor("echo", "3");
    const reply = await foundryRunner().run(thread);
    expect(reply).toEqual([
      expect.objectContaining({
        role: "assistant",
        contents: [{ type: "text", text: "echo: Weather in two cities?" }],
      }),
    ]);
    expect(lastResponseRequest()?.body).toEqual({
      conversation: thread.conversationId,
      agent_reference: { type: "agent_reference", name: "echo", version: "3" },
    });
    expect(lastResponseRequest()?.query.has("api-version")).toBe(false);
    expect((await thread.messages()).map((message) => message.role)).toEqual(["user", "assistant"]);
    expect((await thread.messages({ last: 1 }))[0]).toEqual(reply[0]);
  });

  test("returns function calls, takes their results as items, and answers with them", async () => {
    const { thread } = await conversationFor("weather");
    const runner = foundryRunner();
    const calls = await runner.run(thread);
    expect(calls.map((message) => message.contents[0]?.type)).toEqual(["function_call", "function_call"]);
    await thread.append(
      calls.map((call, index) => ({
        role: "tool" as const,
        contents: [
          {
            type: "function_result" as const,
            callId: String(call.contents[0]?.callId),
            result: index === 0 ? "sunny" : "snow",
          },
        ],
      })),
    );
    const [answer] = await runner.run(thread);
    expect(answer?.contents).toEqual([{ type: "text", text: "forecast: sunny | snow" }]);
    const roles = (await thread.messages()).map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "assistant", "tool", "tool", "assistant"]);
  });

  test.each([
    ["broken", "failed", "server_error"],
    ["terse", "incomplete", "max_output_tokens"],
    ["revoked", "cancelled", undefined],
  ])("a response of %s that ends %s is a FoundryRunError", async (agentName, ending, code) => {
    const { thread } = await conversationFor(agentName);
    const run = foundryRunner().run(thread);
    await expect(run).rejects.toBeInstanceOf(FoundryRunError);
    await expect(run).rejects.toMatchObject({
      ending,
      code,
      threadId: thread.id,
      runId: expect.stringMatching(/^resp_/),
    });
  });

  test("names the missing agent, or the missing conversation, on a 404", async () => {
    const { thread } = await conversationFor("echo");
    const missingAgent = foundryRunner({ agentName: "nobody" }).run(thread);
    await expect(missingAgent).rejects.toBeInstanceOf(FoundryAgentNotFoundError);
    await thread.delete();
    await expect(foundryRunner().run(thread)).rejects.toBeInstanceOf(FoundryNotFoundError);
  });

  test("config.model names another agent; settings the agent fixes are refused before anything is sent", async () => {
    const { thread } = await conversationFor("weather");
    const [reply] = await foundryRunner().run(thread, { config: { model: "echo" } });
    expect(reply?.contents[0]).toMatchObject({ text: "echo: Weather in two cities?" });
    const before = fixture.emulator.http.requests.length;
    const refused = foundryRunner().run(thread, { config: { systemPrompt: "Be brief.", temperature: 0 } });
    await expect(refused).rejects.toBeInstanceOf(UnsupportedOperationError);
    await expect(refused).rejects.toThrow(/systemPrompt, temperature/);
    expect(fixture.emulator.http.requests.length).toBe(before);
  });

  test("runs an agent on a thread of another type by sending its view, and appends the reply there", async () => {
    const { store } = await conversationFor("echo");
    const local = await store.create({ id: "local-1" });
    await local.append([
      { role: "system", text: "You are terse." },
      { role: "user", text: "Hello from memory" },
    ]);
    const runner = foundryRunner({ adapter: fixture.adapter(), agentName: "echo" });
    const appended = await runner.run(local);
    expect(appended).toHaveLength(1);
    expect((await local.messages()).at(-1)?.contents).toEqual([
      { type: "text", text: "echo: Hello from memory" },
    ]);
    expect(lastResponseRequest()?.body).toMatchObject({
      input: [
        { type: "message", role: "system", content: "You are terse." },
        { type: "message", role: "user", content: "Hello from memory" },
      ],
      agent_reference: { type: "agent_reference", name: "echo" },
    });
    expect(fixture.emulator.conversations.conversations.size).toBeGreaterThan(0);
    await expect(foundryRunner().run(local)).rejects.toBeInstanceOf(FoundryConfigurationError);
    // A token budget shapes the view it sends; sampling settings are the agent's.
    // (20 tokens fit the system message and the newest one; a newest one over budget alone is refused.)
    expect(await runner.run(local, { config: { maxInputTokens: 20 } })).toHaveLength(1);
    expect(lastResponseRequest()?.body.input).toHaveLength(2); // the system message and the newest one, not all three
    await expect(runner.run(local, { config: { temperature: 1 } })).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  test("an aborted signal stops the run before anything is sent", async () => {
    const { thread } = await conversationFor("echo");
    const controller = new AbortController();
    controller.abort(new Error("not now"));
    const before = fixture.emulator.http.requests.length;
    await expect(foundryRunner().run(thread, { signal: controller.signal })).rejects.toThrow("not now");
    expect(fixture.emulator.http.requests.length).toBe(before);
  });

  test("finds the Foundry thread inside a wrapper, or binds a wrapped state again with the runner's adapter", async () => {
    const { thread } = await conversationFor("echo");
    // thread-service hands runners a view object holding the real thread as `inner`.
    const wrapped = Object.assign(Object.create(null), {
      type: thread.type,
      inner: thread,
      toJSON: () => thread.toJSON(),
    });
    const [reply] = await foundryRunner().run(wrapped);
    expect(reply?.contents[0]).toMatchObject({ text: "echo: Weather in two cities?" });
    const opaque = {
      type: thread.type,
      id: thread.id,
      toJSON: () => thread.toJSON(),
    } as unknown as typeof thread;
    await expect(foundryRunner().run(opaque)).rejects.toBeInstanceOf(FoundryConfigurationError);
    const [again] = await foundryRunner({ adapter: fixture.adapter() }).run(opaque);
    expect(again?.contents[0]).toMatchObject({ text: "echo: Weather in two cities?" });
  });
});

import type { Message, Thread, WorkflowThread } from "@skein/thread-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiRunner, RunAbortedError } from "../src/index.js";
import { caught, countRequests, type Harness, startHarness } from "./harness.js";

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const weatherTool = {
  type: "function" as const,
  name: "weather",
  description: "The weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

function runner(options: Parameters<typeof openaiRunner>[0] = {}) {
  return openaiRunner({ client: harness.client, model: "gpt-test", tools: [weatherTool], ...options });
}

function textOf(message: Message | undefined): string {
  return (message?.contents ?? []).map((content) => (content.type === "text" ? content.text : "")).join("");
}

/** A two-turn exchange with a tool call: the model asks for the tool, the caller answers, the model replies. */
async function toolCallExchange(thread: Thread): Promise<{ first: Message[]; second: Message[] }> {
  await thread.append({ role: "user", text: "What is the weather in Paris?" });
  const first = await runner().run(thread);
  const call = first[0]?.contents[0];
  expect(call).toMatchObject({ type: "function_call", name: "weather", arguments: { city: "Paris" } });
  const callId = (call as { callId: string }).callId;
  await thread.append({
    role: "tool",
    contents: [{ type: "function_result", callId, result: { celsius: 21 } }],
  });
  const second = await runner().run(thread);
  expect(textOf(second[0])).toBe('The tool answered: {"celsius":21}');
  return { first, second };
}

describe("openaiRunner", () => {
  it("runs a two-turn tool call on an openai.conversation, sending only the conversation", async () => {
    const thread = await harness.store.create("openai.conversation");
    const { first, second } = await toolCallExchange(thread);
    const creates = harness.emulator.requestsTo("responses.create");
    expect(creates).toHaveLength(2);
    expect(creates[0]?.body).toMatchObject({ conversation: thread.toJSON().conversationId, store: true });
    expect(creates[0]?.body.input).toBeUndefined();
    expect(creates[0]?.body.previous_response_id).toBeUndefined();
    const messages = await thread.messages();
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    // The returned messages are the service's items; usage rides on the last of each run.
    expect(messages[1]?.id).toBe(first[0]?.id);
    expect(messages[3]?.id).toBe(second[0]?.id);
    expect(second[0]?.contents.at(-1)).toMatchObject({ type: "usage", inputTokens: expect.any(Number) });
  });

  it("runs a two-turn tool call on an openai.responses chain through previous_response_id", async () => {
    const thread = await harness.store.create("openai.responses");
    await toolCallExchange(thread);
    const creates = harness.emulator.requestsTo("responses.create");
    expect(creates[0]?.body.previous_response_id).toBeUndefined();
    expect(creates[1]?.body.previous_response_id).toBe(harness.emulator.modelCalls[0]?.responseId);
    expect(creates[1]?.body.input).toEqual([
      { type: "function_call_output", call_id: expect.any(String), output: '{"celsius":21}' },
    ]);
    expect(thread.toJSON()).toMatchObject({
      previousResponseId: harness.emulator.modelCalls[1]?.responseId,
      pending: [],
      length: 4,
    });
    const messages = await thread.messages();
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect((await harness.store.get(thread.id)).toJSON()).toEqual(thread.toJSON());
  });

  it("sends a local thread's view with store: false and appends the output with its usage", async () => {
    const thread = await harness.store.create({ metadata: { user: "u-7" } });
    await thread.append([
      { role: "system", text: "Be brief." },
      { role: "user", text: "hello" },
    ]);
    const appended = await runner().run(thread, {
      config: { systemPrompt: "You are kind.", temperature: 0.2, maxOutputTokens: 100, thinkingLevel: "low" },
    });
    const body = harness.emulator.requestsTo("responses.create")[0]?.body;
    expect(body).toMatchObject({
      model: "gpt-test",
      store: false,
      stream: true,
      instructions: "You are kind.",
      temperature: 0.2,
      max_output_tokens: 100,
      reasoning: { effort: "low" },
      include: ["reasoning.encrypted_content"],
      input: [
        { type: "message", role: "system", content: [{ type: "input_text", text: "Be brief." }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] },
      ],
    });
    expect(appended.map((message) => message.contents[0]?.type)).toEqual(["reasoning", "text"]);
    expect(appended[0]?.contents[0]).toMatchObject({ type: "reasoning", encryptedContent: "enc:hello" });
    expect(textOf(appended[1])).toBe("echo: hello");
    expect(appended[1]?.contents.at(-1)).toMatchObject({ type: "usage" });
    expect(await thread.messages({ last: 2 })).toEqual(appended);
    // The next run sends the encrypted reasoning back, since the service kept nothing.
    await thread.append({ role: "user", text: "again" });
    await runner().run(thread, { config: { thinkingLevel: "low" } });
    const input = harness.emulator.requestsTo("responses.create")[1]?.body.input as Array<
      Record<string, unknown>
    >;
    expect(input.map((item) => item.type)).toEqual(["message", "message", "reasoning", "message", "message"]);
    expect(input[2]).toMatchObject({ encrypted_content: "enc:hello" });
  });

  it("maps outputSchema to a strict json_schema text format and parameters into the request", async () => {
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "structured" });
    const schema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const [answer] = await runner({ stream: false }).run(thread, {
      config: { outputSchema: schema, parameters: { top_p: 0.5, store: true } },
    });
    const body = harness.emulator.requestsTo("responses.create")[0]?.body;
    expect(body?.text).toEqual({ format: { type: "json_schema", name: "output", schema, strict: true } });
    expect(body).toMatchObject({ top_p: 0.5, store: false });
    expect(body?.stream).toBeUndefined();
    expect(JSON.parse(textOf(answer))).toEqual({ answer: "structured" });
  });

  it("leaves out a call whose result never came, so an interrupted thread stays runnable", async () => {
    const thread = await harness.store.create();
    await thread.append([
      { role: "user", text: "What is the weather in Oslo?" },
      {
        role: "assistant",
        contents: [{ type: "function_call", callId: "lost", name: "weather", arguments: { city: "Oslo" } }],
      },
      { role: "user", text: "never mind, hello" },
    ]);
    await runner({ tools: [] }).run(thread);
    const input = harness.emulator.requestsTo("responses.create")[0]?.body.input as Array<
      Record<string, unknown>
    >;
    expect(input.map((item) => item.type)).toEqual(["message", "message"]);
  });

  it("marks a response cut short by max_output_tokens with an error content", async () => {
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "a rather long question that will not fit" });
    const [answer] = await runner().run(thread, { config: { maxOutputTokens: 2 } });
    expect(textOf(answer)).toBe("echo: a ");
    expect(answer?.contents.at(-1)).toEqual({
      type: "error",
      message: "The response stopped early: max_output_tokens.",
      code: "max_output_tokens",
    });
  });

  it("stops on abort and appends nothing more than the messages already complete", async () => {
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "tell me three things" });
    harness.emulator.model = () => ({
      output: ["one", "two", "three"].map((text) => ({
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text, annotations: [] }],
      })),
    });
    harness.emulator.inject("responses.create", { stallAfterItems: 2 });
    const controller = new AbortController();
    const run = runner().run(thread, { signal: controller.signal });
    while ((await thread.messages()).length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await caught(run);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect((error as RunAbortedError).appended.map(textOf)).toEqual(["one"]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await thread.messages()).map(textOf)).toEqual(["tell me three things", "one"]);
  });

  it("aborts a request that hangs, and makes no request for an aborted signal", async () => {
    const thread = await harness.store.create("openai.responses");
    await thread.append({ role: "user", text: "hello" });
    harness.emulator.inject("responses.create", { hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await caught(runner({ stream: false }).run(thread, { signal: controller.signal }));
    expect(error.name).toBe("RunAbortedError");
    expect(thread.toJSON().pending).toHaveLength(1);
    expect(
      await countRequests(harness, () => caught(runner().run(thread, { signal: controller.signal }))),
    ).toBe(0);
  });

  it("surfaces a failed response as ResponseFailedError, streamed or not, and appends nothing", async () => {
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "hello" });
    for (const stream of [true, false]) {
      harness.emulator.inject("responses.create", {
        failResponse: { code: "server_error", message: "The model broke." },
      });
      const error = await caught(runner({ stream }).run(thread));
      expect(error.name).toBe("ResponseFailedError");
      expect(error).toMatchObject({ code: "server_error" });
      expect(error.message).toMatch(
        /^\[adapter-openai\] Response resp_\w+ failed \(server_error\): The model broke\.$/,
      );
    }
    expect(await thread.messages()).toHaveLength(1);
  });

  it("needs a model", async () => {
    const thread = await harness.store.create();
    const error = await caught(openaiRunner({ client: harness.client }).run(thread));
    expect(error.name).toBe("OpenAIConfigurationError");
    expect(error.message).toMatch(/^\[adapter-openai\] No model/);
  });

  it("runs a workflow as its main sub-thread, moving a response chain through the workflow", async () => {
    const workflow = (await harness.store.create("workflow", { threads: [] })) as WorkflowThread;
    await workflow.addThread("main", { type: "openai.responses" });
    await workflow.append({ role: "user", text: "hello" });
    const [answer] = await runner().run(workflow);
    expect(textOf(answer)).toBe("echo: hello");
    expect(harness.emulator.requestsTo("responses.create")[0]?.body).toMatchObject({
      store: true,
      input: [{ role: "user" }],
    });
    expect((await workflow.messages()).map(textOf)).toEqual(["hello", "echo: hello"]);
  });
});

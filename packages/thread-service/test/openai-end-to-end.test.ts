// The service driving a model through @skein/adapter-openai's runner, with the real `openai` client talking to
// that package's loopback emulator of the OpenAI REST routes.
import { openaiAdapter, openaiRunner } from "@skein/adapter-openai";
import {
  type ContextProvider,
  messageText,
  openStore,
  type ThreadStore,
  UnsupportedOperationError,
} from "@skein/thread-core";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createThreadService,
  ThreadKilledError,
  type ThreadService,
  ThreadTimeoutError,
} from "../src/index.js";

/** The part of adapter-openai's emulator these tests use. */
interface OpenAIEmulator {
  url: string;
  apiKey: string;
  requestsTo(route: string): Array<{ body: Record<string, unknown> }>;
  inject(route: string, fault: { hang?: boolean }): void;
  close(): Promise<void>;
}

// Loaded by URL: the emulator is another package's test code, outside this package's TypeScript program.
const emulatorModule = new URL("../../adapter-openai/test/emulator/emulator.ts", import.meta.url).href;
const { startEmulator } = (await import(emulatorModule)) as { startEmulator(): Promise<OpenAIEmulator> };

let emulator: OpenAIEmulator;
let store: ThreadStore;
let service: ThreadService;

/** Counts the turns of a thread and tells the model how many there were. */
const turns: ContextProvider<{ count: number }> = {
  name: "turns",
  invoking: ({ state }) => ({ instructions: `This is turn ${(state?.count ?? 0) + 1}.` }),
  invoked: ({ state }) => ({ count: (state?.count ?? 0) + 1 }),
};

beforeEach(async () => {
  emulator = await startEmulator();
  const client = new OpenAI({
    apiKey: emulator.apiKey,
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    // A backstop only: maxTime or kill ends a hanging call here; generous, for a machine busy with other work.
    timeout: 20_000,
  });
  store = await openStore("memory:", { adapters: [openaiAdapter({ client })] });
  service = createThreadService({
    store,
    runner: openaiRunner({ client, model: "gpt-test" }),
    contextProviders: [turns],
  });
});
afterEach(async () => {
  await service.close({ abort: true });
  await store.close();
  await emulator.close();
});

describe("thread-service with openaiRunner", () => {
  it("runs a local thread's messages in order, with its configuration, providers and structured output", async () => {
    const outputSchema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const { threadId } = await service.createThread({
      config: { systemPrompt: "Answer in JSON.", temperature: 0.1, maxOutputTokens: 200, outputSchema },
    });
    const [first, second] = await Promise.all([
      service.send(threadId, "Name a river."),
      service.send(threadId, "Name a mountain."),
    ]);
    expect(first?.output).toEqual({ answer: "Name a river." });
    expect(second?.output).toEqual({ answer: "Name a mountain." });

    const creates = emulator.requestsTo("responses.create");
    expect(creates).toHaveLength(2);
    expect(creates[0]?.body).toMatchObject({
      model: "gpt-test",
      instructions: "Answer in JSON.\n\nThis is turn 1.",
      temperature: 0.1,
      max_output_tokens: 200,
      store: false,
      text: { format: { type: "json_schema", schema: outputSchema } },
    });
    expect(creates[1]?.body.instructions).toBe("Answer in JSON.\n\nThis is turn 2.");

    const thread = await store.get(threadId);
    expect((await thread.messages()).map(messageText)).toEqual([
      "Name a river.",
      '{"answer":"Name a river."}',
      "Name a mountain.",
      '{"answer":"Name a mountain."}',
    ]);
    expect(thread.context.turns).toEqual({ count: 2 });
    expect(await service.status(threadId)).toBe("idle");
  });

  it("runs an openai.conversation thread, its record kept in the conversation's state", async () => {
    const { threadId } = await service.createThread({
      type: "openai.conversation",
      config: { model: "gpt-test" },
    });
    const result = await service.send(threadId, "hello there");
    expect(result.messages.map(messageText)).toEqual(["echo: hello there"]);
    expect(emulator.requestsTo("responses.create")[0]?.body).toMatchObject({ store: true });

    const thread = await store.get(threadId);
    expect(thread.type).toBe("openai.conversation");
    expect((await thread.messages()).map(messageText)).toEqual(["hello there", "echo: hello there"]);
    expect((await service.info(threadId)).config).toEqual({ model: "gpt-test" });
    await service.pause(threadId);
    expect(await service.status(threadId)).toBe("paused");
  });

  it("refuses at createThread an openai.conversation thread its runner does not serve, deleting the conversation", async () => {
    const client = new OpenAI({ apiKey: emulator.apiKey, baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    // A runner that serves local threads only, as an application may configure one.
    const localOnly = { ...openaiRunner({ client, model: "gpt-test" }), supports: () => false };
    const refusing = createThreadService({ store, runner: localOnly });
    const error = await refusing
      .createThread({ type: "openai.conversation", config: { model: "gpt-test" } })
      .catch((caught: unknown) => caught);
    expect(UnsupportedOperationError.isInstance(error)).toBe(true);
    expect(emulator.requestsTo("conversations.create")).toHaveLength(1);
    expect(emulator.requestsTo("conversations.delete")).toHaveLength(1);
    expect(emulator.requestsTo("responses.create")).toEqual([]);
    expect((await store.list()).items).toEqual([]);
    await refusing.close();
  });

  it("aborts a model call that hangs, at maxTime or on kill, through the request's signal", async () => {
    const timed = await service.createThread({ config: { maxTime: 200 } });
    emulator.inject("responses.create", { hang: true });
    await expect(service.send(timed.threadId, "are you there?")).rejects.toBeInstanceOf(ThreadTimeoutError);
    expect(await service.status(timed.threadId)).toBe("failed");

    const killed = await service.createThread();
    emulator.inject("responses.create", { hang: true });
    const sending = service.send(killed.threadId, "still there?");
    while (emulator.requestsTo("responses.create").length < 2)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await service.kill(killed.threadId);
    await expect(sending).rejects.toBeInstanceOf(ThreadKilledError);
    expect((await (await store.get(killed.threadId)).messages()).map(messageText)).toEqual(["still there?"]);
  });
});

import { inspect } from "node:util";
import {
  ConflictError,
  openStore,
  ServiceConflictError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceUnavailableError,
  StoreUnavailableError,
  type Thread,
  ThreadNotFoundError,
} from "@skein/thread-core";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import {
  OpenAIConflictError,
  OpenAINotFoundError,
  OpenAIRateLimitError,
  OpenAIServiceError,
  OpenAIUnavailableError,
  openaiAdapter,
  openaiRunner,
} from "../src/index.js";
import { caught, type Harness, type HarnessOptions, startHarness } from "./harness.js";

let harness: Harness;
async function start(options: HarnessOptions = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}
afterEach(async () => {
  await harness.close();
});

async function conversation(): Promise<Thread> {
  const thread = await harness.store.create("openai.conversation");
  await thread.append({ role: "user", text: "hello" });
  return thread;
}

describe("service errors", () => {
  it("maps 404 to a ThreadNotFoundError for the thread, with status, request id and cause", async () => {
    await start();
    const thread = await conversation();
    harness.emulator.state.conversations.delete(thread.toJSON().conversationId as string);
    const error = await caught(thread.messages());
    expect(error).toBeInstanceOf(OpenAINotFoundError);
    expect(error).toBeInstanceOf(ThreadNotFoundError);
    expect(ServiceNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      source: "adapter-openai",
      threadId: thread.id,
      status: 404,
      retryable: false,
      operation: "conversations.items.list",
    });
    expect((error as OpenAINotFoundError).requestId).toMatch(/^req_/);
    expect(error.message).toMatch(/^\[adapter-openai\] Thread ".*" was not found: OpenAI answered 404/);
    expect(error.cause).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("maps 409 to a retryable ConflictError, and writes nothing", async () => {
    await start();
    const thread = await conversation();
    harness.emulator.inject("conversations.items.create", {
      status: 409,
      message: "Another response is in progress.",
    });
    const error = await caught(thread.append({ role: "user", text: "again" }));
    expect(error).toBeInstanceOf(OpenAIConflictError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(ServiceConflictError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ source: "adapter-openai", status: 409, retryable: true });
    expect(error.message).toContain("Another response is in progress.");
    expect(await thread.messages()).toHaveLength(1);
  });

  it("maps 500 to a retryable StoreUnavailableError after the client's own retries", async () => {
    await start({ maxRetries: 1 });
    const thread = await conversation();
    harness.emulator.inject("conversations.items.list", { status: 500, headers: { "retry-after-ms": "1" } });
    expect(await thread.messages()).toHaveLength(1);
    harness.emulator.inject("conversations.items.list", {
      status: 500,
      times: 2,
      headers: { "retry-after-ms": "1" },
    });
    const before = harness.emulator.requestsTo("conversations.items.list").length;
    const error = await caught(thread.messages());
    expect(harness.emulator.requestsTo("conversations.items.list").length - before).toBe(2);
    expect(error).toBeInstanceOf(OpenAIUnavailableError);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(ServiceRateLimitError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ source: "adapter-openai", status: 500, retryable: true });
  });

  it("retries a 429 as the client's policy says, then surfaces it as retryable with its wait", async () => {
    await start({ maxRetries: 1 });
    const thread = await conversation();
    const runner = openaiRunner({ client: harness.client, model: "gpt-test" });
    harness.emulator.inject("responses.create", { status: 429, headers: { "retry-after-ms": "5" } });
    const [answer] = await runner.run(thread);
    expect(answer?.role).toBe("assistant");
    expect(harness.emulator.requestsTo("responses.create")).toHaveLength(2);
    harness.emulator.inject("responses.create", {
      status: 429,
      times: 2,
      headers: { "retry-after-ms": "5" },
    });
    const error = await caught(runner.run(thread));
    expect(error).toBeInstanceOf(OpenAIRateLimitError);
    // Still an OpenAIUnavailableError, as before, and the family's rate-limit error.
    expect(error).toBeInstanceOf(OpenAIUnavailableError);
    expect(ServiceRateLimitError.isInstance(error)).toBe(true);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      source: "adapter-openai",
      status: 429,
      retryable: true,
      retryAfterMs: 5,
      operation: "responses.create",
    });
  });

  it("maps a request that hangs past the client's timeout to a retryable error", async () => {
    await start({ timeout: 150 });
    const thread = await conversation();
    harness.emulator.inject("conversations.items.list", { hang: true });
    const error = await caught(thread.messages());
    expect(error).toBeInstanceOf(OpenAIUnavailableError);
    expect(error.message).toMatch(/did not answer in time/);
  });

  it("maps other refusals to OpenAIServiceError, not retryable", async () => {
    await start();
    const thread = await conversation();
    harness.emulator.inject("conversations.items.create", { status: 400, message: "Invalid 'items[0]'." });
    const error = await caught(thread.append({ role: "user", text: "x" }));
    expect(error).toBeInstanceOf(OpenAIServiceError);
    expect(error).toMatchObject({ status: 400, retryable: false });
  });
});

describe("the API key", () => {
  it("never appears in a thread's JSON, the saved store state, an adapter or an error", async () => {
    await start();
    const key = harness.emulator.apiKey;
    const conversationThread = await conversation();
    const responsesThread = await harness.store.create("openai.responses");
    await responsesThread.append({ role: "user", text: "hello" });
    await openaiRunner({ client: harness.client, model: "gpt-test" }).run(responsesThread);
    for (const thread of [conversationThread, responsesThread]) {
      expect(JSON.stringify(thread)).not.toContain(key);
      expect(JSON.stringify(await harness.store.export(thread.id))).not.toContain(key);
      expect(inspect(thread, { depth: 10 })).not.toContain(key);
    }
    expect(JSON.stringify(harness.adapter)).not.toContain(key);
    expect(inspect(harness.adapter, { depth: 10 })).not.toContain(key);
    // A proxy that quotes the key back in its error body.
    harness.emulator.inject("conversations.items.list", {
      status: 500,
      message: `upstream rejected Bearer ${key}`,
    });
    const error = await caught(conversationThread.messages());
    for (const text of [
      error.message,
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      String(error.stack),
    ]) {
      expect(text).not.toContain(key);
    }
    expect(error.message).toContain("Bearer ***");
  });

  it("is masked when the service refuses it", async () => {
    await start();
    const wrongKey = "sk-wrong-key-that-must-not-leak-9876";
    const client = new OpenAI({ apiKey: wrongKey, baseURL: `${harness.emulator.url}/v1`, maxRetries: 0 });
    const store = await openStore("memory:", { adapters: [openaiAdapter({ client })] });
    const error = await caught(store.create("openai.conversation"));
    expect(error).toMatchObject({ name: "OpenAICredentialError", status: 401 });
    expect(OpenAIServiceError.isInstance(error)).toBe(true);
    for (const text of [error.message, JSON.stringify(error), inspect(error, { depth: 10 })]) {
      expect(text).not.toContain(wrongKey);
      expect(text).not.toContain("9876");
    }
    await store.close();
  });
});

describe("binding", () => {
  it("says how to pass a client when a state is opened without the adapter", async () => {
    await start();
    const thread = await conversation();
    const bare = await openStore("memory:");
    const error = await caught(bare.open(JSON.parse(JSON.stringify(thread))));
    expect(error.name).toBe("OpenAIConfigurationError");
    expect(error.message).toContain("openStore(url, { adapters: [openaiAdapter({ client })] })");
    await bare.close();
  });

  it("builds its own client from apiKey and baseURL", async () => {
    await start();
    const adapter = openaiAdapter({
      apiKey: harness.emulator.apiKey,
      baseURL: `${harness.emulator.url}/v1`,
      maxRetries: 0,
    });
    const store = await openStore("memory:", { adapters: [adapter] });
    const thread = await store.create("openai.conversation");
    await thread.append({ role: "user", text: "hello" });
    expect(await thread.messages()).toHaveLength(1);
    expect(adapter.client).toBeInstanceOf(OpenAI);
    await store.close();
  });
});

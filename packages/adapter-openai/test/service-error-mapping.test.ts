// The failures every remote adapter maps the same way (the same cases run in adapter-foundry and adapter-a2a):
// each is a thread-core `ServiceError` with the same fields for the same answer.
import { createServer } from "node:net";
import { openStore, ServiceCredentialError, ServiceError, StoreUnavailableError } from "@skein/thread-core";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAICredentialError, OpenAIServiceError, openaiAdapter, openaiRunner } from "../src/index.js";
import { caught, type Harness, startHarness } from "./harness.js";

let harness: Harness;
afterEach(async () => {
  await harness.close();
});

async function failedList(fault: { status: number; headers?: Record<string, string> }) {
  harness = await startHarness();
  const thread = await harness.store.create("openai.conversation");
  harness.emulator.inject("conversations.items.list", fault);
  return caught(thread.messages());
}

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("OpenAI failures as ServiceError", () => {
  it("429 with Retry-After: retryable, with the wait in milliseconds and the request id", async () => {
    const error = await failedList({ status: 429, headers: { "retry-after": "2" } });
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: "conversations.items.list",
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it("503: retryable, no wait given", async () => {
    const error = await failedList({ status: 503 });
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: "conversations.items.list",
      status: 503,
      retryable: true,
      retryAfterMs: undefined,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it("401: a ServiceCredentialError, not retryable", async () => {
    const error = await failedList({ status: 401 });
    expect(ServiceCredentialError.isInstance(error)).toBe(true);
    expect(OpenAICredentialError.isInstance(error)).toBe(true);
    expect(OpenAIServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ operation: "conversations.items.list", status: 401, retryable: false });
  });

  it("a refused connection: retryable, no status, the socket's code", async () => {
    harness = await startHarness();
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: `http://127.0.0.1:${await closedPort()}/v1`,
      maxRetries: 0,
    });
    const store = await openStore("memory:", { adapters: [openaiAdapter({ client })] });
    const error = await caught(store.create("openai.conversation"));
    await store.close();
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: "conversations.create",
      status: undefined,
      retryable: true,
      code: "ECONNREFUSED",
      requestId: undefined,
    });
  });
});

describe("OpenAI failures without a status", () => {
  /** Runs the streaming runner against an emulator that answers `responses.create` with `fault`. */
  async function failedRun(fault: Parameters<Harness["emulator"]["inject"]>[1]) {
    harness = await startHarness();
    const thread = await harness.store.create();
    await thread.append({ role: "user", text: "hello" });
    harness.emulator.inject("responses.create", fault);
    return caught(openaiRunner({ client: harness.client, model: "gpt-test" }).run(thread));
  }
  /** An SSE `error` event whose data carries `error`: the SDK throws `APIError(undefined, data.error, …)`. */
  const errorEnvelope = (code: string, message: string) =>
    `event: error\ndata: ${JSON.stringify({ error: { code, message, type: "invalid_request_error" } })}\n\n`;

  it("a stream's error about the request (the SDK's APIError without a status): not retryable", async () => {
    const error = await failedRun({ rawBody: errorEnvelope("context_length_exceeded", "Too long.") });
    expect(OpenAIServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({
      operation: "responses.create",
      status: undefined,
      code: "context_length_exceeded",
      retryable: false,
    });
    expect(error.message).toMatch(
      /^\[adapter-openai\] OpenAI failed during responses\.create \(request req_\d+\): Too long\.$/,
    );
  });

  it("a stream's error that says the service broke or throttled: retryable", async () => {
    for (const code of ["server_error", "rate_limit_exceeded"]) {
      const error = await failedRun({ rawBody: errorEnvelope(code, "Try again.") });
      await harness.close();
      expect(OpenAIServiceError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: undefined, code, retryable: true });
    }
    harness = await startHarness();
  });

  it("a Responses `error` event: retryable only for a code that says the service broke or throttled", async () => {
    const refused = await failedRun({
      streamError: { code: "context_length_exceeded", message: "Too long." },
    });
    expect(refused).toMatchObject({ code: "context_length_exceeded", retryable: false });
    await harness.close();
    const broken = await failedRun({ streamError: { code: "server_error", message: "Broke." } });
    expect(broken).toMatchObject({ code: "server_error", retryable: true });
  });

  it("a 200 whose body is not JSON (a baseURL that is not an OpenAI API): not retryable", async () => {
    harness = await startHarness();
    harness.emulator.inject("conversations.create", { rawBody: "<html>Welcome to nginx!</html>" });
    const error = await caught(harness.store.create("openai.conversation"));
    expect(OpenAIServiceError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/body that is not JSON/);
    expect(error).toMatchObject({ status: undefined, retryable: false });
  });
});

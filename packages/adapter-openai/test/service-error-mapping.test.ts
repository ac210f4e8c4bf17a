// The failures every remote adapter maps the same way (the same cases run in adapter-foundry and adapter-a2a):
// each is a thread-core `ServiceError` with the same fields for the same answer.
import { createServer } from "node:net";
import { openStore, ServiceCredentialError, ServiceError, StoreUnavailableError } from "@skein/thread-core";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAICredentialError, OpenAIServiceError, openaiAdapter } from "../src/index.js";
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

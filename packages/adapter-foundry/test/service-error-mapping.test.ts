// The failures every remote adapter maps the same way (the same cases run in adapter-openai and adapter-a2a):
// each is a thread-core `ServiceError` with the same fields for the same answer, on both Foundry SDKs.
import { createServer } from "node:net";
import { openStore, ServiceCredentialError, ServiceError, StoreUnavailableError } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import { FoundryCredentialError, FoundryServiceError } from "../src/index.js";
import { callService } from "../src/service-call.js";
import { loopbackTransport } from "./emulator/loopback-transport.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

const kinds = [
  {
    type: "foundry.thread",
    list: /^\/threads\/[^/]+\/messages$/,
    operation: "messages.list",
    create: { agentId: "asst_echo" },
  },
  {
    type: "foundry.conversation",
    list: /^\/openai\/v1\/conversations\/[^/]+\/items$/,
    operation: "conversations.items.list",
    create: { agentName: "echo" },
  },
] as const;

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: Error) => error,
  );
}

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(kinds)("Foundry failures as ServiceError on $type", (kind) => {
  async function failedList(fault: { status: number; headers?: Record<string, string> }) {
    const store = await fixture.store();
    const thread = await store.create(kind.type, {
      ...kind.create,
      messages: [{ role: "user", text: "hi" }],
    });
    fixture.emulator.http.inject({ method: "GET", path: kind.list, ...fault });
    return failure(thread.messages());
  }

  test("429 with Retry-After: retryable, with the wait in milliseconds and the request id", async () => {
    const error = await failedList({ status: 429, headers: { "retry-after": "2" } });
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: kind.operation,
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  test("503: retryable, no wait given", async () => {
    const error = await failedList({ status: 503 });
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: kind.operation,
      status: 503,
      retryable: true,
      retryAfterMs: undefined,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  test("401: a ServiceCredentialError, not retryable", async () => {
    const error = await failedList({ status: 401 });
    expect(ServiceCredentialError.isInstance(error)).toBe(true);
    expect(FoundryCredentialError.isInstance(error)).toBe(true);
    expect(FoundryServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ operation: kind.operation, status: 401, retryable: false });
  });

  test("a refused connection: retryable, no status, the socket's code", async () => {
    const host = new URL(fixture.emulator.endpoint).host;
    const transport = loopbackTransport(host, new URL(`http://127.0.0.1:${await closedPort()}`));
    const store = await openStore("memory:", { adapters: [fixture.emulator.adapter({ transport })] });
    const error = await failure(store.create(kind.type, kind.create));
    await store.close();
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: undefined,
      retryable: true,
      code: "ECONNREFUSED",
      requestId: undefined,
    });
  });
});

test("a credential that gives no token is a ServiceCredentialError before any request", async () => {
  const before = fixture.emulator.http.requests.length;
  const store = await fixture.store({
    credential: {
      getToken: async () => {
        throw new Error("no login here");
      },
    },
  });
  const error = await failure(store.create("foundry.thread", { agentId: "asst_echo" }));
  expect(ServiceCredentialError.isInstance(error)).toBe(true);
  expect(FoundryCredentialError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ operation: "credential.getToken", status: undefined, retryable: false });
  expect(fixture.emulator.http.requests.length).toBe(before);
});

describe("Foundry failures without a status", () => {
  /** Streams `responses.create` through the adapter's own openai client, as the emulator answers it. */
  async function failedStream(body: string): Promise<Error> {
    fixture.emulator.http.inject({ method: "POST", path: /^\/openai\/v1\/responses$/, rawBody: body });
    const client = fixture.adapter().openAIClient();
    return failure(
      callService({ operation: "responses.create" }, { requestTimeoutMs: 10_000 }, async (signal) => {
        const events = await client.responses.create(
          { model: "gpt-test", input: "hi", stream: true },
          { signal },
        );
        for await (const _ of events) {
          // drained until the error event
        }
      }),
    );
  }
  const errorEvent = (code: string, message: string) =>
    `event: error\ndata: ${JSON.stringify({ error: { code, message, type: "invalid_request_error" } })}\n\n`;

  test("a stream's error event about the request: a FoundryServiceError, not retryable, not 'could not be reached'", async () => {
    const error = await failedStream(errorEvent("invalid_prompt", "Invalid prompt"));
    expect(FoundryServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({
      operation: "responses.create",
      status: undefined,
      code: "invalid_prompt",
      retryable: false,
    });
    expect(error.message).toBe("[adapter-foundry] Foundry failed during responses.create: Invalid prompt");
  });

  test("a stream's error event that says the service broke or throttled: retryable", async () => {
    for (const code of ["server_error", "rate_limit_exceeded"]) {
      const error = await failedStream(errorEvent(code, "Try again."));
      expect(FoundryServiceError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: undefined, code, retryable: true });
    }
  });

  test("a 200 whose body is not JSON (an endpoint that is not a Foundry project): not retryable", async () => {
    const store = await fixture.store();
    fixture.emulator.http.inject({
      method: "POST",
      path: /^\/openai\/v1\/conversations$/,
      rawBody: "<html>Welcome to nginx!</html>",
    });
    const error = await failure(store.create("foundry.conversation", { agentName: "echo" }));
    expect(FoundryServiceError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/body that is not JSON/);
    expect(error).toMatchObject({ status: undefined, retryable: false });
  });
});

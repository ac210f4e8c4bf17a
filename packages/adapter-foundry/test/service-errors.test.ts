import { inspect } from "node:util";
import {
  ConflictError,
  ServiceConflictError,
  ServiceNotFoundError,
  ServiceUnavailableError,
  SkeinError,
  StoreUnavailableError,
  type Thread,
  ThreadNotFoundError,
} from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import {
  FoundryConflictError,
  FoundryNotFoundError,
  FoundryServiceError,
  FoundryUnavailableError,
  foundryAdapter,
  foundryRunner,
} from "../src/index.js";
import type { Fault } from "./emulator/emulator-http.js";
import { TEST_TOKEN } from "./emulator/test-credential.js";
import { useEmulator } from "./emulator/use-emulator.js";

const fixture = useEmulator();

/** Each type, its list route, and a thread of it with one message. */
const kinds = [
  {
    type: "foundry.thread",
    list: /^\/threads\/[^/]+\/messages$/,
    create: { agentId: "asst_echo" },
  },
  {
    type: "foundry.conversation",
    list: /^\/openai\/v1\/conversations\/[^/]+\/items$/,
    create: { agentName: "echo" },
  },
] as const;

async function threadOf(kind: (typeof kinds)[number], settings = {}): Promise<Thread> {
  const store = await fixture.store(settings);
  const thread = await store.create(kind.type, {
    ...kind.create,
    messages: [{ role: "user", text: "hello" }],
  });
  return thread;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: Error) => error,
  );
}

/** Every way an error is commonly shown: none may carry the bearer token. */
function expectNoToken(value: unknown): void {
  const error = value as Error;
  const shown = [
    String(error),
    error.message,
    error.stack ?? "",
    JSON.stringify(error),
    inspect(error, { depth: Number.POSITIVE_INFINITY }),
    inspect(error.cause, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ];
  for (const text of shown) expect(text).not.toContain(TEST_TOKEN);
}

describe.each(kinds)("service errors on $type", (kind) => {
  const inject = (fault: Omit<Fault, "path">) =>
    fixture.emulator.http.inject({ method: "GET", path: kind.list, ...fault });

  test("404 becomes FoundryNotFoundError, a ThreadNotFoundError naming the thread", async () => {
    const thread = await threadOf(kind);
    inject({ status: 404, message: "gone" });
    const error = await failure(thread.messages());
    expect(error).toBeInstanceOf(FoundryNotFoundError);
    expect(error).toBeInstanceOf(ThreadNotFoundError);
    expect(ServiceNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      source: "adapter-foundry",
      threadId: thread.id,
      detail: expect.stringMatching(/^Foundry answered 404 to/),
      status: 404,
      retryable: false,
    });
    expect(error.message).toMatch(/^\[adapter-foundry\] Thread ".*" was not found: Foundry answered 404 to/);
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(error.cause).toBeInstanceOf(Error);
    expectNoToken(error);
  });

  test("409 becomes FoundryConflictError, a ConflictError", async () => {
    const thread = await threadOf(kind);
    inject({ status: 409, message: "another request holds the thread" });
    const error = await failure(thread.messages());
    expect(error).toBeInstanceOf(FoundryConflictError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(ServiceConflictError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ source: "adapter-foundry", status: 409, retryable: true });
    expectNoToken(error);
  });

  test("429 after the client's retries is retryable and carries the service's hint", async () => {
    const thread = await threadOf(kind);
    inject({ status: 429, times: 5, headers: { "retry-after-ms": "1500" } });
    const error = await failure(thread.messages());
    expect(error).toBeInstanceOf(FoundryUnavailableError);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 1500, code: "injected_429" });
    expect((error as FoundryUnavailableError).requestId).toMatch(/^req_/);
    expectNoToken(error);
  });

  test("500 becomes FoundryUnavailableError", async () => {
    const thread = await threadOf(kind);
    inject({ status: 500 });
    const error = await failure(thread.messages({ last: 1 }));
    expect(error).toBeInstanceOf(FoundryUnavailableError);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ source: "adapter-foundry", status: 500, retryable: true });
    expectNoToken(error);
  });

  test("a request that hangs ends at requestTimeoutMs as a retryable timeout", async () => {
    const thread = await threadOf(kind, { requestTimeoutMs: 150 });
    // The emulator never answers, so only the timeout can end the call (or the test times out).
    inject({ hang: true });
    const error = await failure(thread.messages());
    expect(error).toBeInstanceOf(FoundryUnavailableError);
    expect(error).toMatchObject({ code: "timeout", retryable: true });
    expect(error.message).toMatch(/did not answer .* within 150 ms/);
  });

  test("the SDK's own retries absorb a transient 429", async () => {
    const thread = await threadOf(kind, { maxRetries: 2 });
    inject({ status: 429, times: 1, headers: { "retry-after-ms": "1", "retry-after": "0" } });
    expect(await thread.messages()).toHaveLength(1);
  });

  test("a service that echoes the bearer token in its error has it scrubbed", async () => {
    const thread = await threadOf(kind);
    inject({ status: 400, message: `refused request with header Authorization: Bearer ${TEST_TOKEN}` });
    const error = await failure(thread.messages());
    expect(error).toBeInstanceOf(FoundryServiceError);
    expect(error.message).toContain("Bearer ***");
    expectNoToken(error);
  });

  test("the state never holds the token, the credential or a client", async () => {
    const thread = await threadOf(kind);
    await foundryRunner().run(thread);
    const json = JSON.stringify(thread);
    expect(json).not.toContain(TEST_TOKEN);
    expect(json).not.toMatch(/credential|token|client|authorization/i);
    const requests = fixture.emulator.http.requests;
    expect(requests.every((request) => request.authorization === `Bearer ${TEST_TOKEN}`)).toBe(true);
  });
});

test("a credential the service refuses is a FoundryServiceError (401) without the token", async () => {
  const wrong = "wrong-token-0123456789";
  const adapter = foundryAdapter({
    endpoint: fixture.emulator.endpoint,
    transport: fixture.emulator.transport,
    maxRetries: 0,
    credential: { getToken: async () => ({ token: wrong, expiresOnTimestamp: Date.now() + 60_000 }) },
  });
  const store = await (await import("@skein/thread-core")).openStore("memory:", { adapters: [adapter] });
  for (const [type, options] of [
    ["foundry.thread", { agentId: "asst_echo" }],
    ["foundry.conversation", { agentName: "echo" }],
  ] as const) {
    const error = await failure(store.create(type, options));
    expect(error).toBeInstanceOf(FoundryServiceError);
    expect(error).toMatchObject({ status: 401 });
    for (const text of [error.message, inspect(error, { depth: Number.POSITIVE_INFINITY })])
      expect(text).not.toContain(wrong);
  }
});

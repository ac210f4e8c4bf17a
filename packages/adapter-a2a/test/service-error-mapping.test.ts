// The failures every remote adapter maps the same way (the same cases run in adapter-openai and
// adapter-foundry): each is a thread-core `ServiceError` with the same fields for the same answer. Here a
// gateway in front of the real A2A test server answers them.
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import {
  openStore,
  ServiceCredentialError,
  ServiceError,
  StoreUnavailableError,
  type ThreadStore,
} from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../scripts/redis-server.mjs";
import { agentError } from "../src/agent-error.js";
import { A2aAgentError, A2aCredentialError, a2aAdapter, a2aFetch } from "../src/index.js";
import { type AgentFault, type AgentServer, startAgentServer } from "./agent-server.js";

let server: AgentServer;
let store: ThreadStore;

beforeAll(async () => {
  server = await startAgentServer();
  store = await openStore("memory:", { adapters: [a2aAdapter()] });
});
afterAll(async () => {
  await store.close();
  await server.close();
});

async function failedSend(fault: AgentFault, on: ThreadStore = store): Promise<unknown> {
  const thread = await on.create("a2a", { agentUrl: server.agentUrl("echo") });
  server.inject("echo", fault);
  return thread.append({ role: "user", text: "hello" }).catch((caught: unknown) => caught);
}

describe("A2A failures as ServiceError", () => {
  it("429 with Retry-After: retryable, with the wait in milliseconds and the request id", async () => {
    const error = await failedSend({ status: 429, headers: { "retry-after": "2" } });
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: "SendMessage",
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it("503: retryable, no wait given", async () => {
    const error = await failedSend({ status: 503 });
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: "SendMessage",
      status: 503,
      retryable: true,
      retryAfterMs: undefined,
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it("401: a ServiceCredentialError, not retryable", async () => {
    const error = await failedSend({ status: 401 });
    expect(ServiceCredentialError.isInstance(error)).toBe(true);
    expect(A2aCredentialError.isInstance(error)).toBe(true);
    expect(A2aAgentError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ operation: "SendMessage", status: 401, retryable: false });
  });

  it("a refused connection: retryable, no status, the socket's code", async () => {
    const thread = await store.create("a2a", { agentUrl: `http://127.0.0.1:${await freePort()}` });
    const error = await thread.append({ role: "user", text: "anyone?" }).catch((caught: unknown) => caught);
    expect(ServiceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      operation: "GetAgentCard",
      status: undefined,
      retryable: true,
      code: "ECONNREFUSED",
      requestId: undefined,
    });
  });

  it("a client factory of the caller's own gets the headers through a2aFetch, and the status without it", async () => {
    const own = (fetchImpl?: typeof fetch) =>
      openStore("memory:", {
        adapters: [
          a2aAdapter({
            clientFactory: new ClientFactory({
              transports: [new JsonRpcTransportFactory(fetchImpl ? { fetchImpl } : {})],
            }),
          }),
        ],
      });
    const recording = await own(a2aFetch(fetch));
    const withHeaders = await failedSend({ status: 429, headers: { "retry-after": "3" } }, recording);
    expect(withHeaders).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3000 });
    await recording.close();
    const plain = await own();
    // The SDK's error keeps the status in its message, but not the answer's headers.
    const statusOnly = await failedSend({ status: 429, headers: { "retry-after": "3" } }, plain);
    expect(statusOnly).toMatchObject({ status: 429, retryable: true, retryAfterMs: undefined });
    await plain.close();
  });
});

describe("the status of an A2A failure comes from the HTTP answer, never from the agent's text", () => {
  it("a JSON-RPC error answered with 200 whose text holds ': 403' is an A2aAgentError, not a credential error", async () => {
    const plain = await openStore("memory:", {
      adapters: [
        a2aAdapter({ clientFactory: new ClientFactory({ transports: [new JsonRpcTransportFactory({})] }) }),
      ],
    });
    // JSON (a blocking send, and a stream's opening answer) and an SSE event; with and without a2aFetch.
    for (const on of [store, plain]) {
      for (const [agent, sse] of [
        ["unstreamed", false],
        ["echo", false],
        ["echo", true],
      ] as const) {
        const thread = await on.create("a2a", { agentUrl: server.agentUrl(agent) });
        server.inject(agent, {
          status: 200,
          rpcError: { code: -32602, message: "Invalid params: 403 items is over the limit", sse },
        });
        const error = await thread.append({ role: "user", text: "hello" }).catch((caught: unknown) => caught);
        expect(A2aAgentError.isInstance(error), `${agent} sse=${sse}`).toBe(true);
        expect(ServiceCredentialError.isInstance(error), `${agent} sse=${sse}`).toBe(false);
        expect(error).toMatchObject({ status: undefined, retryable: false });
      }
    }
    await plain.close();
  });

  it("a plain Error whose text holds a status is not read as an HTTP answer", () => {
    const error = agentError(new Error("Agent failed: 403 tool calls exceeded the plan"), {
      agentUrl: "http://agent.example",
      operation: "SendMessage",
    });
    expect(ServiceCredentialError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ status: undefined, retryable: false, reason: "TRANSPORT_ERROR" });
  });

  it("the SDK's own messages for an HTTP failure give their status", () => {
    const statusOf = (message: string) =>
      (
        agentError(new Error(message), { agentUrl: "http://agent.example", operation: "SendMessage" }) as {
          status?: number;
        }
      ).status;
    expect(
      statusOf(
        "HTTP error for message/send! Status: 503 Service Unavailable. Response: gateway answered 503",
      ),
    ).toBe(503);
    expect(
      statusOf("HTTP error establishing stream for message/stream: 429 Too Many Requests. Response: x"),
    ).toBe(429);
    expect(statusOf("HTTP error for /v1/message:send: 502 Bad Gateway")).toBe(502);
    expect(
      statusOf("Failed to fetch Agent Card from http://agent.example/.well-known/agent-card.json: 404"),
    ).toBe(404);
    expect(statusOf("SSE event contained an error: Invalid params: 403 items (Code: -32602) Data: {}")).toBe(
      undefined,
    );
    expect(statusOf("Invalid params: 403 items is over the limit")).toBe(undefined);
  });
});

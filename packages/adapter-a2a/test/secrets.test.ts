import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import {
  ClientFactory,
  createAuthenticatingFetchWithRetry,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { openStore, SkeinError, type ThreadStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2aAgentError, a2aAdapter } from "../src/index.js";
import { type AgentServer, startAgentServer } from "./agent-server.js";

/** An API key the client factory sends in its own header: not a bearer token, not shaped like any key. */
const API_KEY = randomBytes(20).toString("hex");

let agents: AgentServer;
let gateway: Server;
let gatewayUrl: string;
let store: ThreadStore;

/**
 * A gateway in front of the real agent server: it serves the agent's card (pointing at itself) and refuses
 * every call, quoting the key it was sent, as a misconfigured proxy may.
 */
async function startGateway(): Promise<Server> {
  const server = createServer(async (request, response) => {
    if (request.url === "/echo/.well-known/agent-card.json") {
      const card = (await (await fetch(`${agents.agentUrl("echo")}/.well-known/agent-card.json`)).json()) as {
        supportedInterfaces: Array<{ url: string }>;
      };
      for (const entry of card.supportedInterfaces) entry.url = `${gatewayUrl}/echo/rpc`;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(card));
      return;
    }
    response
      .writeHead(403, { "content-type": "text/plain" })
      .end(`key ${String(request.headers["x-api-key"])} may not call this agent`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return server;
}

beforeAll(async () => {
  agents = await startAgentServer();
  gateway = await startGateway();
  const fetchWithKey = createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ "x-api-key": API_KEY }),
    shouldRetryWithHeaders: async () => undefined,
  });
  const clientFactory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: fetchWithKey })],
  });
  store = await openStore("memory:", { adapters: [a2aAdapter({ clientFactory, secrets: [API_KEY] })] });
});
afterAll(async () => {
  await store.close();
  await new Promise<void>((resolve) => {
    gateway.close(() => resolve());
    gateway.closeAllConnections();
  });
  await agents.close();
});

describe("credentials the client factory sends", () => {
  it("are scrubbed from an agent error, its cause and every rendering, however quoted", async () => {
    const thread = await store.create("a2a", { agentUrl: `${gatewayUrl}/echo` });
    const error = (await thread
      .append({ role: "user", text: "hello" })
      .catch((caught: unknown) => caught)) as Error;
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(A2aAgentError);
    expect(error.message).toContain("may not call this agent");
    for (const text of [
      error.message,
      String(error.stack),
      JSON.stringify(error),
      JSON.stringify(error, Object.getOwnPropertyNames(error)),
      inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
      inspect(error.cause, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    ]) {
      expect(text).not.toContain(API_KEY.slice(0, 12));
      expect(text).not.toContain(API_KEY.slice(-12));
    }
    expect(JSON.stringify(await store.export(thread.id))).not.toContain(API_KEY.slice(0, 12));
  });
});

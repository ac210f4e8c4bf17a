import { createServer, type Server } from "node:http";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore, type TaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";
import { type AgentName, TEST_AGENTS } from "./test-agents.js";

export interface AgentServer {
  port: number;
  /** The base URL of one agent; its card is at `<url>/.well-known/agent-card.json`. */
  agentUrl(name: AgentName): string;
  /** Every request the server received, in order: what a test counts to prove nothing was sent. */
  readonly requests: ReadonlyArray<{ method: string; url: string }>;
  /**
   * The next request to one agent's RPC route is answered with this HTTP failure instead, as a gateway in
   * front of the agent answers (429 with Retry-After, 503, 401); each carries an `x-request-id`.
   */
  inject(name: AgentName, fault: AgentFault): void;
  close(): Promise<void>;
}

export interface AgentFault {
  status: number;
  headers?: Record<string, string>;
  /**
   * Answer with this JSON-RPC error instead of a gateway's text (with `status`, usually 200, as an agent
   * answers its own errors), as JSON or, with `sse`, as the one event of a stream.
   */
  rpcError?: { code: number; message: string; sse?: boolean };
}

export interface AgentServerOptions {
  /** Where every agent keeps its tasks. @default an InMemoryTaskStore per agent */
  taskStore?: TaskStore;
  /** @default a free port */
  port?: number;
}

/** A real A2A server (the SDK's handler behind express) on loopback, with every test agent at `/<name>`. */
export async function startAgentServer(options: AgentServerOptions = {}): Promise<AgentServer> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const app = express();
  const faults = new Map<string, AgentFault>();
  let answered = 0;
  app.use((request, response, next) => {
    const name = request.path.match(/^\/([^/]+)\/rpc$/)?.[1];
    const fault = name === undefined ? undefined : faults.get(name);
    if (!name || !fault) return next();
    faults.delete(name);
    if (fault.rpcError) {
      const { sse, ...error } = fault.rpcError;
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const { id } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: unknown };
        const body = JSON.stringify({ jsonrpc: "2.0", id, error });
        response.status(fault.status).set({ "x-request-id": `req_${++answered}`, ...fault.headers });
        if (sse) response.type("text/event-stream").send(`data: ${body}\n\n`);
        else response.type("application/json").send(body);
      });
      return;
    }
    response
      .status(fault.status)
      .set({ "x-request-id": `req_${++answered}`, ...fault.headers })
      .type("text/plain")
      .send(`gateway answered ${fault.status}`);
  });
  for (const name of Object.keys(TEST_AGENTS) as AgentName[]) {
    const handler = new DefaultRequestHandler(
      agentCard(name, `${base}/${name}/rpc`),
      options.taskStore ?? new InMemoryTaskStore(),
      TEST_AGENTS[name],
    );
    app.use(`/${name}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: handler }));
    app.use(
      `/${name}/rpc`,
      jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
    );
  }
  const requests: Array<{ method: string; url: string }> = [];
  server.on("request", (request) => requests.push({ method: request.method ?? "", url: request.url ?? "" }));
  server.on("request", app);
  return {
    port,
    requests,
    agentUrl: (name) => `${base}/${name}`,
    inject: (name, fault) => faults.set(name, fault),
    close: () => close(server),
  };
}

function agentCard(name: AgentName, url: string): AgentCard {
  return {
    name,
    description: `The ${name} test agent.`,
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: {
      streaming: name !== "unstreamed",
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

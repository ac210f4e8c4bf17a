import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { conversationRoutes, type RouteRequest } from "./conversation-routes.js";
import { type Answer, readJson, ServiceFailure, send } from "./http-answers.js";
import { type ModelCall, responseRoutes } from "./response-routes.js";
import { type ModelScript, scriptedModel } from "./scripted-model.js";
import { ServiceState } from "./service-state.js";

/** How the next requests to a route fail instead of being served. */
export interface Fault {
  /** The status to answer, with the service's error envelope. */
  status?: number;
  /** How many requests in a row fail. @default 1 */
  times?: number;
  /** Let this many requests through first. @default 0 */
  skip?: number;
  /** The error message in the envelope. */
  message?: string;
  headers?: Record<string, string>;
  /** Answer nothing until the client gives up (its timeout or signal). */
  hang?: boolean;
  /** Serve a streamed response up to this many output items, then stall. */
  stallAfterItems?: number;
  /** Answer `responses.create` with a response in status `failed`, for this reason. */
  failResponse?: { code: string; message: string };
  /** Answer 200 and stream one `error` event, as the service does when a streamed response breaks. */
  streamError?: { code: string; message: string };
  /** Answer 200 with this text as the body, JSON or not, as a misconfigured proxy may. */
  rawBody?: string;
}

export interface RecordedRequest {
  route: string;
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
}

type Handler = (request: RouteRequest) => Answer;

const ROUTES: Array<[method: string, pattern: RegExp, route: string]> = [
  ["POST", /^\/v1\/conversations$/, "conversations.create"],
  ["GET", /^\/v1\/conversations\/([^/]+)$/, "conversations.retrieve"],
  ["POST", /^\/v1\/conversations\/([^/]+)$/, "conversations.update"],
  ["DELETE", /^\/v1\/conversations\/([^/]+)$/, "conversations.delete"],
  ["POST", /^\/v1\/conversations\/([^/]+)\/items$/, "conversations.items.create"],
  ["GET", /^\/v1\/conversations\/([^/]+)\/items$/, "conversations.items.list"],
  ["GET", /^\/v1\/conversations\/([^/]+)\/items\/([^/]+)$/, "conversations.items.retrieve"],
  ["DELETE", /^\/v1\/conversations\/([^/]+)\/items\/([^/]+)$/, "conversations.items.delete"],
  ["POST", /^\/v1\/responses$/, "responses.create"],
  ["GET", /^\/v1\/responses\/([^/]+)$/, "responses.retrieve"],
  ["DELETE", /^\/v1\/responses\/([^/]+)$/, "responses.delete"],
  ["GET", /^\/v1\/responses\/([^/]+)\/input_items$/, "responses.inputItems.list"],
];

/**
 * A loopback emulator of the OpenAI Conversations and Responses REST routes that the `openai` SDK calls,
 * answering with the service's shapes, so that the real client builds and parses every request.
 */
export class OpenAIEmulator {
  readonly state = new ServiceState();
  readonly requests: RecordedRequest[] = [];
  readonly modelCalls: ModelCall[] = [];
  /** Replace to script the model for a test. */
  model: ModelScript = scriptedModel;
  url = "";
  readonly #faults = new Map<string, Fault[]>();
  readonly #handlers: Record<string, Handler>;
  readonly #server = createServer((request, response) => void this.#serve(request, response));
  #requestCount = 0;

  constructor(readonly apiKey: string) {
    this.#handlers = {
      ...conversationRoutes(this.state),
      ...responseRoutes(this.state, {
        model: () => this.model,
        calls: this.modelCalls,
      }),
    } as Record<string, Handler>;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The next `fault.times` requests to `route` (as `conversations.items.list`) fail as described. */
  inject(route: string, fault: Fault): void {
    const queue = this.#faults.get(route) ?? [];
    for (let index = 0; index < (fault.skip ?? 0); index++) queue.push({});
    for (let index = 0; index < (fault.times ?? 1); index++) queue.push(fault);
    this.#faults.set(route, queue);
  }

  /** Requests made to a route, in order. */
  requestsTo(route: string): RecordedRequest[] {
    return this.requests.filter((request) => request.route === route);
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = `req_${++this.#requestCount}`;
    const closed = new Promise<void>((resolve) => response.on("close", () => resolve()));
    try {
      await send(response, await this.#answer(request, closed), requestId);
    } catch (error) {
      const failure = error instanceof ServiceFailure ? error : new ServiceFailure(500, String(error));
      if (!response.headersSent) await send(response, failure.answer(), requestId);
      else response.destroy();
    }
  }

  async #answer(request: IncomingMessage, closed: Promise<void>): Promise<Answer> {
    const url = new URL(request.url ?? "/", "http://emulator");
    const match = ROUTES.map(([method, pattern, route]) => ({
      method,
      route,
      found: pattern.exec(url.pathname),
    })).find((candidate) => candidate.method === request.method && candidate.found);
    const body = await readJson(request);
    if (!match?.found)
      throw new ServiceFailure(404, `Unknown request URL: ${request.method} ${url.pathname}.`);
    this.requests.push({
      route: match.route,
      method: match.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
    });
    this.#authenticate(request);
    const fault = this.#faults.get(match.route)?.shift();
    if (fault?.hang) {
      await closed;
      throw new ServiceFailure(499, "The client closed the request.");
    }
    if (fault?.rawBody !== undefined) return { status: 200, text: fault.rawBody };
    if (fault?.streamError) {
      const data = { type: "error", sequence_number: 0, param: null, ...fault.streamError };
      return {
        status: 200,
        events: (async function* () {
          yield { event: "error", data };
        })(),
      };
    }
    if (fault?.status) {
      const failure = new ServiceFailure(
        fault.status,
        fault.message ?? `Injected ${fault.status}.`,
        null,
        null,
      );
      return { ...failure.answer(), ...(fault.headers ? { headers: fault.headers } : {}) };
    }
    const params = match.found.slice(1).map((part) => decodeURIComponent(part));
    return (this.#handlers[match.route] as Handler)({
      params,
      query: url.searchParams,
      body,
      closed,
      stallAfterItems: fault?.stallAfterItems,
      failResponse: fault?.failResponse,
    });
  }

  #authenticate(request: IncomingMessage): void {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (given === this.apiKey) return;
    const masked = given ? `${given.slice(0, 7)}${"*".repeat(8)}${given.slice(-4)}` : "none";
    throw new ServiceFailure(
      401,
      `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      null,
      "invalid_api_key",
    );
  }
}

/** Starts an emulator on a free loopback port. */
export async function startEmulator(apiKey = "sk-test-emulator-0123456789abcdef"): Promise<OpenAIEmulator> {
  return new OpenAIEmulator(apiKey).start();
}

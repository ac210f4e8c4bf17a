import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/** A request as a route sees it: the path below `/api/projects/<project>`, the parsed JSON body. */
export interface EmulatorRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

export type RouteHandler = (request: EmulatorRequest, params: string[]) => unknown;

export interface Route {
  method: string;
  pattern: RegExp;
  handler: RouteHandler;
}

/** What a route throws to answer with the services' error body, `{ error: { message, type, code, param } }`. */
export class ServiceFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: { code?: string; param?: string; type?: string } = {},
  ) {
    super(message);
  }
}

/** A fault to inject: the next `times` requests matching method and path get `status` (or no answer). */
export interface Fault {
  method?: string;
  /** Tested against the path below the project, e.g. `/threads/thread_1/messages`. */
  path: RegExp;
  status?: number;
  /** Never answer: the client's own timeout has to end the request. */
  hang?: boolean;
  times?: number;
  /** Let this many matching requests through first. */
  after?: number;
  headers?: Record<string, string>;
  message?: string;
  /** Answer 200 with this text as a JSON body, JSON or not, as a misconfigured proxy may. */
  rawBody?: string;
}

/** One request as it reached the emulator, for assertions on what the SDKs sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface HttpSettings {
  project: string;
  token: string;
  /** Routes for paths under `/openai/v1` (no api-version) and for the rest (`api-version=v1` required). */
  openAIRoutes: Route[];
  agentsRoutes: Route[];
}

/**
 * The loopback HTTP server both services share: project-scoped paths, bearer check, api-version check,
 * injected faults, JSON in and out, 200 for every success (as both services answer).
 */
export class EmulatorHttp {
  readonly requests: RecordedRequest[] = [];
  readonly #faults: Array<Fault & { times: number; after: number }> = [];
  readonly #server: Server;
  readonly #settings: HttpSettings;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        reply(response, 500, { error: { message: `emulator bug: ${String(error)}`, type: "server_error" } });
      });
    });
  }

  async listen(): Promise<URL> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const { port } = this.#server.address() as AddressInfo;
    return new URL(`http://127.0.0.1:${port}`);
  }

  inject(fault: Fault): void {
    this.#faults.push({ ...fault, times: fault.times ?? 1, after: fault.after ?? 0 });
  }

  clearFaults(): void {
    this.#faults.length = 0;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections(); // hung requests included
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://emulator");
    const body = await readJson(request);
    const prefix = `/api/projects/${this.#settings.project}`;
    if (!url.pathname.startsWith(`${prefix}/`)) {
      return reply(response, 404, { error: { message: `No project at ${url.pathname}`, type: "not_found" } });
    }
    const path = url.pathname.slice(prefix.length);
    const method = request.method ?? "GET";
    const authorization = request.headers.authorization;
    this.requests.push({ method, path, query: url.searchParams, authorization, body });
    if (authorization !== `Bearer ${this.#settings.token}`) {
      return reply(response, 401, {
        error: { message: "Missing or invalid bearer token.", code: "unauthorized" },
      });
    }
    const fault = this.#faults.find((candidate) => candidate.times > 0 && matches(candidate, method, path));
    if (fault && fault.after > 0) fault.after -= 1;
    else if (fault) {
      fault.times -= 1;
      if (fault.hang) return; // the socket stays open until the client gives up or the emulator closes
      if (fault.rawBody !== undefined) {
        response.writeHead(200, { "content-type": "application/json", ...fault.headers });
        response.end(fault.rawBody);
        return;
      }
      const status = fault.status ?? 500;
      return reply(
        response,
        status,
        { error: { message: fault.message ?? `Injected ${status}.`, code: `injected_${status}` } },
        fault.headers,
      );
    }
    const openAI = path.startsWith("/openai/v1/");
    if (!openAI && url.searchParams.get("api-version") !== "v1") {
      return reply(response, 400, {
        error: { message: "api-version must be v1.", code: "BadRequest", param: "api-version" },
      });
    }
    const routePath = openAI ? path.slice("/openai/v1".length) : path;
    const routes = openAI ? this.#settings.openAIRoutes : this.#settings.agentsRoutes;
    for (const route of routes) {
      const match = route.method === method ? route.pattern.exec(routePath) : null;
      if (!match) continue;
      try {
        const result = route.handler(
          { method, path: routePath, query: url.searchParams, body, headers: request.headers },
          match.slice(1),
        );
        return reply(response, 200, result);
      } catch (error) {
        if (!(error instanceof ServiceFailure)) throw error;
        return reply(response, error.status, {
          error: { message: error.message, type: "invalid_request_error", ...error.fields },
        });
      }
    }
    return reply(response, 404, { error: { message: `No route for ${method} ${path}`, type: "not_found" } });
  }
}

function matches(fault: Fault, method: string, path: string): boolean {
  return (fault.method === undefined || fault.method === method) && fault.path.test(path);
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": `req_${Math.random().toString(36).slice(2, 10)}`,
    ...headers,
  });
  response.end(text);
}

/** `limit`, `order` (default `desc`), `after` over records in creation order: the list shape both services use. */
export function listPage<T extends { id: string }>(records: T[], query: URLSearchParams) {
  const limit = Number(query.get("limit") ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new ServiceFailure(400, "limit must be an integer from 1 to 100.", { param: "limit" });
  }
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc")
    throw new ServiceFailure(400, "order must be asc or desc.", { param: "order" });
  const ordered = order === "asc" ? [...records] : [...records].reverse();
  const after = query.get("after");
  let start = 0;
  if (after !== null) {
    const index = ordered.findIndex((record) => record.id === after);
    if (index === -1)
      throw new ServiceFailure(400, `No item with id '${after}' to list after.`, { param: "after" });
    start = index + 1;
  }
  const data = ordered.slice(start, start + limit);
  return {
    object: "list",
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}

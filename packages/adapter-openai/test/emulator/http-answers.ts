import type { IncomingMessage, ServerResponse } from "node:http";

/** A JSON answer, or an error in the service's envelope: `{ error: { message, type, param, code } }`. */
export interface Answer {
  status: number;
  body?: unknown;
  /** The body as it is, instead of `body` as JSON. */
  text?: string;
  headers?: Record<string, string>;
  /** Server-sent events instead of a JSON body (a streamed response). */
  events?: AsyncIterable<{ event: string; data: unknown }>;
}

export class ServiceFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = status === 404
      ? "invalid_request_error"
      : status >= 500
        ? "server_error"
        : "invalid_request_error",
  ) {
    super(message);
  }

  answer(): Answer {
    return {
      status: this.status,
      body: { error: { message: this.message, type: this.type, param: this.param, code: this.code } },
    };
  }
}

export function ok(body: unknown): Answer {
  return { status: 200, body };
}

export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.length === 0) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new ServiceFailure(400, "We could not parse the JSON body of your request.");
}

export async function send(response: ServerResponse, answer: Answer, requestId: string): Promise<void> {
  const headers = { "x-request-id": requestId, ...answer.headers };
  if (answer.events) {
    response.writeHead(answer.status, {
      ...headers,
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
    });
    for await (const { event, data } of answer.events) {
      if (response.destroyed) return;
      response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }
    response.end();
    return;
  }
  const text = answer.text ?? (answer.body === undefined ? "" : JSON.stringify(answer.body));
  response.writeHead(answer.status, { ...headers, "content-type": "application/json" });
  response.end(text);
}

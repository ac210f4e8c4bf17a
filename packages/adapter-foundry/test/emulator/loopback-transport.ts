import { request as httpRequest, type IncomingMessage } from "node:http";
import type { FoundryHttpClient } from "../../src/index.js";

type PipelineRequest = Parameters<FoundryHttpClient["sendRequest"]>[0];
type PipelineResponse = Awaited<ReturnType<FoundryHttpClient["sendRequest"]>>;
type HttpHeaders = PipelineResponse["headers"];

/**
 * Test transports that carry requests for `https://<host>` to the emulator's plain-HTTP loopback port.
 * The SDKs still see an https: endpoint, so their TLS-only rule for bearer tokens is exercised, not
 * bypassed; only the socket below them goes to 127.0.0.1.
 */
export interface LoopbackTransport {
  httpClient: FoundryHttpClient;
  fetch: typeof globalThis.fetch;
}

export function loopbackTransport(host: string, target: URL): LoopbackTransport {
  const toLoopback = (url: string): URL => {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" || parsed.host !== host) {
      throw new Error(`loopback transport only carries https://${host}, not ${parsed.origin}`);
    }
    return new URL(`${parsed.pathname}${parsed.search}`, target);
  };
  return {
    httpClient: { sendRequest: (request) => send(request, toLoopback(request.url)) },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const body =
        request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      return fetch(toLoopback(request.url), {
        method: request.method,
        headers: request.headers,
        body,
        signal: request.signal,
      });
    },
  };
}

function send(request: PipelineRequest, url: URL): Promise<PipelineResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name] = value;
    const outgoing = httpRequest(url, { method: request.method, headers }, (incoming) => {
      readBody(incoming).then(
        (bodyAsText) =>
          resolve({
            request,
            status: incoming.statusCode ?? 0,
            headers: responseHeaders(incoming),
            bodyAsText,
          }),
        reject,
      );
    });
    const abort = () => {
      const error = new Error("The operation was aborted.");
      error.name = "AbortError";
      outgoing.destroy(error);
    };
    if (request.abortSignal?.aborted) return abort();
    request.abortSignal?.addEventListener("abort", abort, { once: true });
    outgoing.on("error", reject);
    outgoing.on("close", () => request.abortSignal?.removeEventListener("abort", abort));
    const body = request.body;
    if (typeof body === "string" || body instanceof Uint8Array) outgoing.end(body);
    else if (body === undefined || body === null) outgoing.end();
    else reject(new Error("loopback transport sends string and byte bodies only"));
  });
}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The `HttpHeaders` the Azure pipeline reads: case-insensitive, iterable, `toJSON`. */
function responseHeaders(incoming: IncomingMessage): HttpHeaders {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) values.set(name.toLowerCase(), Array.isArray(value) ? value.join(", ") : value);
  }
  return {
    get: (name: string) => values.get(name.toLowerCase()),
    has: (name: string) => values.has(name.toLowerCase()),
    set: (name: string, value: string | number | boolean) =>
      void values.set(name.toLowerCase(), String(value)),
    delete: (name: string) => void values.delete(name.toLowerCase()),
    toJSON: () => Object.fromEntries(values),
    [Symbol.iterator]: () => values.entries(),
  };
}

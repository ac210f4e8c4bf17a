import { request } from "node:http";

/** What a raw request got back: the status, the headers and the body as text. */
export interface RawResponse {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** A raw request, so the test controls every header (fetch would fill in Host and Origin itself). */
export function call(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** A UI's API as a test uses it: GET with the token, POST JSON with the token. */
export function apiOf(server: { port: number; token: string }) {
  const headers = { "x-skein-token": server.token };
  return {
    get: (path: string) => call(server.port, path, { headers }),
    post: (path: string, body: unknown) =>
      call(server.port, path, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
  };
}

/** A refusal as the API must give it: a 4xx JSON error with a name and a message, and no stack trace. */
export function refusal(response: RawResponse): { status: number; name: string; message: string } {
  const body = JSON.parse(response.body) as { error: { name: string; message: string } };
  if (/\n\s+at /.test(response.body) || response.body.includes("node_modules"))
    throw new Error(`a stack trace in the answer: ${response.body}`);
  return { status: response.status, name: body.error.name, message: body.error.message };
}

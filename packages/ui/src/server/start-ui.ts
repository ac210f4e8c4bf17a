import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { UiInfo } from "../api-types.js";
import { UiRequestError } from "../errors.js";
import { hostAllowed, newAccessToken, requestToken, SECURITY_HEADERS, tokenMatches } from "./access-token.js";
import { routeApi } from "./api-routes.js";
import { describeApiError } from "./error-status.js";
import { followStream } from "./follow-stream.js";
import { loadStaticAssets, pageHtml } from "./static-assets.js";
import { checkUiOptions, type UiOptions } from "./ui-options.js";

export type { UiOptions } from "./ui-options.js";

/** A running UI: its URL, access token and port, and `close()` (which closes the store if the UI opened it). */
export interface UiServer {
  /** The address to open, access token included: `http://127.0.0.1:PORT/?token=…`. */
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

/** The largest request body a write may send. */
const MAX_BODY = 64 * 1024;

/**
 * Serves the UI over `store` on 127.0.0.1 only. Every request must carry the random token of the
 * returned URL; the page and its assets are served from the package, nothing from elsewhere. Options are
 * checked before anything starts (`UiOptionsError`); a store URL is opened here and closed by `close()`.
 * @example const ui = await startUi({ store }); console.log(ui.url);
 */
export async function startUi(options: UiOptions): Promise<UiServer> {
  const assets = loadStaticAssets();
  const checked = await checkUiOptions(options);
  const { store } = checked;
  const token = newAccessToken();
  const info: UiInfo = { storeUrl: store.url, write: checked.write, pollInterval: checked.pollInterval };
  let port = 0;
  const server = createServer((request, response) => {
    handle(request, response).catch((error) => sendError(response, error));
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hostAllowed(request.headers.host, port))
      throw new UiRequestError(403, "This server answers only to 127.0.0.1 and localhost.");
    const url = new URL(request.url ?? "/", `http://127.0.0.1:${port}`);
    if (!tokenMatches(token, requestToken(request, url)))
      throw new UiRequestError(401, "Missing or wrong access token: open the URL that `skein ui` printed.");
    const method = request.method ?? "GET";
    if (url.pathname === "/") return send(response, 200, "text/html; charset=utf-8", pageHtml(token));
    if (url.pathname === "/assets/app.js")
      return send(response, 200, "text/javascript; charset=utf-8", assets.script);
    if (url.pathname === "/assets/app.css")
      return send(response, 200, "text/css; charset=utf-8", assets.style);
    if (url.pathname === "/api/follow") {
      if (method !== "GET") throw new UiRequestError(405, "/api/follow answers GET only.");
      return followStream(store, request, response, url.searchParams);
    }
    if (url.pathname.startsWith("/api/")) {
      if (method !== "GET" && method !== "HEAD") assertSameOrigin(request, port);
      const result = await routeApi({ store, info }, method, url, () => readJsonBody(request));
      return send(response, 200, "application/json; charset=utf-8", JSON.stringify(result));
    }
    throw new UiRequestError(404, `Nothing at ${url.pathname}.`);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(checked.port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    if (checked.ownsStore) await store.close();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    port,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (checked.ownsStore) await store.close();
    },
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": type,
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

function sendError(response: ServerResponse, error: unknown): void {
  const { status, body } = describeApiError(error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  send(response, status, "application/json; charset=utf-8", JSON.stringify(body));
}

/** A write from a page of another origin is refused even before its token is looked at. */
function assertSameOrigin(request: IncomingMessage, port: number): void {
  const origin = request.headers.origin;
  if (origin !== undefined && !hostAllowed(origin.replace(/^http:\/\//, ""), port))
    throw new UiRequestError(403, "Writes are accepted only from the UI's own page.");
  if (!String(request.headers["content-type"] ?? "").startsWith("application/json"))
    throw new UiRequestError(415, "Writes send JSON (content-type: application/json).");
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new UiRequestError(413, "The request body is too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new UiRequestError(400, "The request body is not JSON.");
  }
}

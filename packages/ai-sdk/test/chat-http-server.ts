import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ThreadStore } from "@skein/thread-core";
import {
  convertToModelMessages,
  jsonSchema,
  type LanguageModel,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
} from "ai";
import { persistChat, resumeChat } from "../src/index.js";

const tools = {
  weather: tool({
    inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
    execute: async ({ city }) => ({ city, sky: "clear" }),
  }),
};

/** A chat server on loopback: `POST /api/chat` streams a reply with persistChat, `GET /api/chat/:id/stream` resumes it. */
export async function startChatServer(
  store: ThreadStore,
  model: () => LanguageModel,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    route(store, model, request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/chat`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function route(
  store: ThreadStore,
  model: () => LanguageModel,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const resume = /^\/api\/chat\/([^/]+)\/stream$/.exec(request.url ?? "");
  if (request.method === "GET" && resume) {
    const abort = new AbortController();
    response.on("close", () => abort.abort());
    return send(
      await resumeChat({ store, chatId: decodeURIComponent(resume[1] as string), signal: abort.signal }),
      response,
    );
  }
  let body = "";
  for await (const piece of request) body += piece;
  const { id, messages } = JSON.parse(body) as { id: string; messages: UIMessage[] };
  const thread = await store.get(id).catch(() => store.create({ id }));
  const result = streamText({
    model: model(),
    messages: await convertToModelMessages(messages),
    tools,
    stopWhen: stepCountIs(3),
  });
  return send(
    result.toUIMessageStreamResponse(await persistChat({ thread, messages, flushMs: 5 })),
    response,
  );
}

/** Writes a fetch `Response` to a Node response, body streamed as it comes. */
async function send(from: Response, to: ServerResponse): Promise<void> {
  to.writeHead(from.status, Object.fromEntries(from.headers));
  if (!from.body) {
    to.end();
    return;
  }
  const reader = from.body.getReader();
  to.on("close", () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
    if (done) break;
    to.write(value);
  }
  to.end();
}

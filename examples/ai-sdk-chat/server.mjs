#!/usr/bin/env node
// Serves the example chat on loopback with the scripted model (no network), keeping chats in a skein store:
//
//   node examples/ai-sdk-chat/server.mjs file:./.skein-chat [--prompts prompts.jsonl] [--slow 50] [--lease 5000]
//
// Prints `listening on <url>`; open `<url>/?user=u-7` in a browser. Ctrl-C (or SIGTERM) closes the store and
// exits. `--prompts` appends every prompt the model is sent, one JSON line each; `--slow <ms>` streams replies word
// by word, `<ms>` apart (ask for something "long"); `--lease <ms>` is how long a dead server's reply stays
// `streaming` before it ends `interrupted` (30 s by default). Routes (`?user=` is the user):
//   GET  /                 the page: sidebar, chat, version pickers, edit and regenerate buttons
//   POST /api/chat         the AI SDK chat route ({ id, message })      GET /api/chat?id=  the chat (loadChat)
//   GET  /api/chats        the sidebar (listChats)                       POST /api/switch   { id, messageId, to }
//   GET  /api/chat/<id>/stream  the reply streaming into the chat, for useChat({ resume: true }) (resumeChat)
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { listChats, loadChat, switchBranch } from "@skein/ai-sdk";
import {
  ConcurrencyError,
  openStore,
  PointNotFoundError,
  SkeinError,
  ThreadNotFoundError,
} from "@skein/thread-core";
import { ExampleChat } from "./chat-client.mjs";
import {
  handleChat,
  handleList,
  handleLoad,
  handleResume,
  handleSwitch,
  scriptedModel,
  userChat,
  userOf,
} from "./chat-route.mjs";
import { renderPage } from "./page.mjs";

const [url = "file:./.skein-chat", ...flags] = process.argv.slice(2);
const flag = (name) => {
  const at = flags.indexOf(name);
  return at < 0 ? undefined : flags[at + 1];
};
const store = await openStore(url);
const promptsFile = flag("--prompts");
const onPrompt = promptsFile
  ? (prompt) => appendFileSync(promptsFile, `${JSON.stringify(prompt)}\n`)
  : undefined;
const delayMs = flag("--slow") === undefined ? undefined : Number(flag("--slow"));
const leaseMs = flag("--lease") === undefined ? undefined : Number(flag("--lease"));
// One model for the process: its replies are numbered, so a regenerated answer differs from the one it replaces.
const model = scriptedModel({ onPrompt, delayMs });

const routes = {
  "POST /api/chat": (request) => handleChat(request, { store, model, leaseMs }),
  "GET /api/chat": (request) => handleLoad(request, { store }),
  "GET /api/chats": (request) => handleList(request, { store }),
  "POST /api/switch": (request) => handleSwitch(request, { store }),
  "GET /": (request) => page(request),
  "POST /send": (request) => pageFlow(request, (chat, form) => chat.sendMessage({ text: form.get("text") })),
  "POST /edit": (request) =>
    pageFlow(request, (chat, form) =>
      chat.sendMessage({ text: form.get("text"), messageId: form.get("message") }),
    ),
  "POST /regenerate": (request) =>
    pageFlow(request, (chat, form) => chat.regenerate({ messageId: form.get("message") })),
  "POST /switch": async (request) => {
    const form = await request.formData();
    const chatId = form.get("chat");
    await userChat(store, chatId, userOf(request));
    await switchBranch({ store, chatId, messageId: form.get("message"), to: Number(form.get("to")) });
    return backToPage(request, chatId);
  },
};

async function page(request) {
  const user = userOf(request);
  const address = new URL(request.url);
  const chatId = address.searchParams.get("chat");
  const from = address.searchParams.get("from");
  const { chats, cursor } = await listChats({ store, owner: user, ...(from ? { cursor: from } : {}) });
  const messages = chatId ? await loadChat(await userChat(store, chatId, user)) : [];
  return new Response(renderPage({ user, chats, cursor, chatId, messages }), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}

/**
 * A form of the page, done as a browser's `useChat` would: the AI SDK's chat, holding the chat as loaded, runs
 * the flow against the chat route (called in this process), then the page shows the chat again.
 */
async function pageFlow(request, flow) {
  const form = await request.formData();
  const user = userOf(request);
  const chatId = form.get("chat") || randomUUID();
  // An empty message field sends nothing.
  if (form.has("text") && !String(form.get("text")).trim()) return backToPage(request, form.get("chat"));
  const messages = form.get("chat") ? await loadChat(await userChat(store, chatId, user)) : [];
  const chat = new ExampleChat({
    id: chatId,
    api: new URL("/api/chat", request.url).href,
    user,
    messages,
    fetch: async (input, init) => handleChat(new Request(input, init), { store, model, leaseMs }),
  });
  await chat.run((running) => flow(running, form));
  return backToPage(request, chatId);
}

function backToPage(request, chatId) {
  const chat = chatId ? `&chat=${encodeURIComponent(chatId)}` : "";
  const location = `/?user=${encodeURIComponent(userOf(request))}${chat}`;
  return new Response(null, { status: 303, headers: { location } });
}

/** A skein error as an HTTP status: what is missing is 404, a thread that moved on 409, other bad input 400. */
function failure(error) {
  const status =
    ThreadNotFoundError.isInstance(error) || PointNotFoundError.isInstance(error)
      ? 404
      : ConcurrencyError.isInstance(error)
        ? 409
        : SkeinError.isInstance(error)
          ? 400
          : 500;
  return new Response(String(error?.message ?? error), { status, headers: { "content-type": "text/plain" } });
}

const server = createServer(async (incoming, outgoing) => {
  try {
    const address = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "127.0.0.1"}`);
    const body = [];
    for await (const chunk of incoming) body.push(chunk);
    // The request's signal says the client went away: a resumed stream then stops following.
    const gone = new AbortController();
    outgoing.on("close", () => gone.abort());
    const request = new Request(address, {
      method: incoming.method,
      headers: incoming.headers,
      signal: gone.signal,
      ...(body.length ? { body: Buffer.concat(body) } : {}),
    });
    const resume = request.method === "GET" && /^\/api\/chat\/[^/]+\/stream$/.test(address.pathname);
    const route = resume
      ? (request) => handleResume(request, { store })
      : routes[`${request.method} ${address.pathname}`];
    const response = route
      ? await route(request).catch(failure)
      : new Response("not found", { status: 404, headers: { "content-type": "text/plain" } });
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) outgoing.write(chunk);
    outgoing.end();
  } catch (error) {
    outgoing.writeHead(500, { "content-type": "text/plain" });
    outgoing.end(String(error?.message ?? error));
  }
});
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.close(() => store.close().then(() => process.exit(0))));
}

#!/usr/bin/env node
// Serves the chat route on loopback with the scripted model, keeping chats in a skein store:
//
//   node examples/ai-sdk-chat/server.mjs file:./.skein-chat [--prompts prompts.jsonl]
//
// Prints `listening on <url>`. `--prompts` appends every prompt the model is sent, one JSON line each.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { openStore } from "@skein/thread-core";
import { handleChat, handleLoad, scriptedModel } from "./chat-route.mjs";

const [url = "file:./.skein-chat", flag, promptsFile] = process.argv.slice(2);
const store = await openStore(url);
const onPrompt =
  flag === "--prompts" ? (prompt) => appendFileSync(promptsFile, `${JSON.stringify(prompt)}\n`) : undefined;

const server = createServer(async (incoming, outgoing) => {
  try {
    const address = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const body = [];
    for await (const chunk of incoming) body.push(chunk);
    const request = new Request(address, {
      method: incoming.method,
      headers: incoming.headers,
      ...(body.length ? { body: Buffer.concat(body) } : {}),
    });
    const response =
      request.method === "POST"
        ? await handleChat(request, { store, model: scriptedModel({ onPrompt }) })
        : await handleLoad(address.searchParams.get("id"), { store });
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

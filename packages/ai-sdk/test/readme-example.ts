import { loadChat, persistChat } from "@skein/ai-sdk";
import { openStore } from "@skein/thread-core";
import { convertToModelMessages, simulateReadableStream, streamText, type UIMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";

// Any store URL: "memory:", "file:./.skein", "redis://localhost:6379".
const store = await openStore(process.env.SKEIN_STORE ?? "memory:");
// Your model (openai("gpt-5.1") from @ai-sdk/openai, say); this one answers without network.
const model = new MockLanguageModelV3({
  doStream: async () => ({
    stream: simulateReadableStream({
      chunks: [
        { type: "text-start", id: "1" },
        { type: "text-delta", id: "1", delta: "Hello from skein." },
        { type: "text-end", id: "1" },
        {
          type: "finish",
          finishReason: { unified: "stop", raw: undefined },
          usage: {
            inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 4, text: 4, reasoning: 0 },
          },
        },
      ],
    }),
  }),
});

// The chat route (a Next.js app/api/chat/route.ts, Hono, or any Request → Response handler).
export async function POST(request: Request): Promise<Response> {
  const { id, messages } = (await request.json()) as { id: string; messages: UIMessage[] };
  const thread = await store.get(id);
  const result = streamText({ model, messages: await convertToModelMessages(messages) });
  return result.toUIMessageStreamResponse(await persistChat({ thread, messages }));
}

// What useChat sends; the stream's end saves the chat, and a page opening it again calls loadChat.
const thread = await store.create({ id: "chat-1" });
const hi: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Hi!" }] };
const body = JSON.stringify({ id: thread.id, messages: [hi] });
await (await POST(new Request("http://localhost/api/chat", { method: "POST", body }))).text();
const chat = await loadChat(await store.get("chat-1"));
console.log(
  chat
    .map(
      (message) =>
        `${message.role}: ${message.parts.map((part) => ("text" in part ? part.text : "")).join("")}`,
    )
    .join(" · "),
);
await store.close();

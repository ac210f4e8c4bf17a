// An AI SDK chat route that keeps its chats in a skein store. The client sends only its newest message (the
// AI SDK's `prepareSendMessagesRequest` pattern); the route loads the rest from the thread, streams the answer
// and saves it with `persistChat`, so any process serving the next request continues the same chat.
import { loadChat, persistChat } from "@skein/ai-sdk";
import { ThreadNotFoundError } from "@skein/thread-core";
import { convertToModelMessages, jsonSchema, stepCountIs, streamText, tool, validateUIMessages } from "ai";
import { MockLanguageModelV3 } from "ai/test";

/** The tools of this chat: deleting a file needs the user's approval. (It only pretends to delete.) */
export const tools = {
  deleteFile: tool({
    description: "Deletes a file.",
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
    needsApproval: true,
    execute: async ({ path }) => ({ deleted: path }),
  }),
};

/**
 * A model without network, for the example: asked to delete a file, it calls `deleteFile`; once the tool's
 * result is in the prompt, it says so. `onPrompt` sees every prompt it is sent.
 */
export function scriptedModel({ onPrompt } = {}) {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      onPrompt?.(prompt);
      const result = prompt
        .flatMap((message) => (message.role === "tool" ? message.content : []))
        .find((part) => part.type === "tool-result");
      const chunks = result
        ? [
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: `Done: ${JSON.stringify(result.output.value)}.` },
            { type: "text-end", id: "t1" },
          ]
        : [
            {
              type: "tool-call",
              toolCallId: "call-1",
              toolName: "deleteFile",
              input: '{"path":"/tmp/old.log"}',
            },
          ];
      const usage = {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      };
      const finishReason = { unified: result ? "stop" : "tool-calls", raw: undefined };
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const chunk of [
              { type: "stream-start", warnings: [] },
              ...chunks,
              { type: "finish", finishReason, usage },
            ]) {
              controller.enqueue(chunk);
            }
            controller.close();
          },
        }),
      };
    },
  });
}

/** `POST { id, message }`: the chat's thread is the store's thread `id`, made on the first message. */
export async function handleChat(request, { store, model }) {
  const { id, message } = await request.json();
  const thread = await store.get(id).catch((error) => {
    if (ThreadNotFoundError.isInstance(error)) return store.create({ id });
    throw error;
  });
  const stored = await loadChat(thread);
  // A message the thread holds (an approval, a client-side tool result) comes back with new parts: it replaces it.
  const messages = await validateUIMessages({
    messages: stored.at(-1)?.id === message.id ? [...stored.slice(0, -1), message] : [...stored, message],
    tools,
  });
  const result = streamText({
    model,
    messages: await convertToModelMessages(messages, { tools }),
    tools,
    stopWhen: stepCountIs(5),
  });
  return result.toUIMessageStreamResponse(await persistChat({ thread, messages }));
}

/** `GET ?id=`: the chat as UI messages, for a page that opens it again. */
export async function handleLoad(id, { store }) {
  return Response.json(await loadChat(await store.get(id)));
}

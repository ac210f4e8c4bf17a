// An AI SDK chat route that keeps its chats in a skein store. The client sends only its newest message (the
// AI SDK's `prepareSendMessagesRequest` pattern); the route loads the rest from the thread, streams the answer
// and saves it with `persistChat`, so any process serving the next request continues the same chat. Beside it:
// the sidebar (`listChats`) and the branch picker of edited and regenerated messages (`switchBranch`).
import { listChats, loadChat, persistChat, resumeChat, switchBranch } from "@skein/ai-sdk";
import { ThreadNotFoundError } from "@skein/thread-core";
import {
  convertToModelMessages,
  jsonSchema,
  simulateReadableStream,
  stepCountIs,
  streamText,
  tool,
  validateUIMessages,
} from "ai";
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
 * A model without network, for the example. Asked to delete a file, it calls `deleteFile`; once the tool's
 * result is in the prompt, it says so. Anything else it answers with a numbered reply, so a regenerated answer
 * reads differently from the one it replaces. `onPrompt` sees every prompt it is sent.
 */
export function scriptedModel({ onPrompt, delayMs } = {}) {
  let replies = 0;
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      onPrompt?.(prompt);
      const asked = prompt.findLastIndex((message) => message.role === "user");
      const question = (prompt[asked]?.content ?? [])
        .map((part) => (part.type === "text" ? part.text : ""))
        .join("");
      const result = prompt
        .slice(asked + 1)
        .flatMap((message) => (message.role === "tool" ? message.content : []))
        .find((part) => part.type === "tool-result");
      const path = /\bdelete (\S+)/i.exec(question)?.[1];
      const chunks = result
        ? textChunks(`Done: ${JSON.stringify(result.output.value)}.`)
        : path
          ? [
              {
                type: "tool-call",
                toolCallId: "call-1",
                toolName: "deleteFile",
                input: JSON.stringify({ path }),
              },
            ]
          : textChunks(
              /\blong\b/i.test(question) ? longStory(++replies) : `Reply ${++replies} to "${question}".`,
              delayMs !== undefined,
            );
      const usage = {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      };
      const finishReason = { unified: result || !path ? "stop" : "tool-calls", raw: undefined };
      const parts = [
        { type: "stream-start", warnings: [] },
        ...chunks,
        { type: "finish", finishReason, usage },
      ];
      // Slowed down (`delayMs`), a reply streams word by word for a while: long enough to join it from another
      // tab, or to kill the server in the middle of it.
      return { stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: delayMs ?? null }) };
    },
  });
}

function textChunks(text, byWord = false) {
  const deltas = byWord ? text.split(/(?<= )/) : [text];
  return [
    { type: "text-start", id: "t1" },
    ...deltas.map((delta) => ({ type: "text-delta", id: "t1", delta })),
    { type: "text-end", id: "t1" },
  ];
}

/** The reply to a question that asks for something long: 200 numbered words. */
function longStory(reply) {
  const words = Array.from({ length: 200 }, (_, index) => `word${index + 1}`);
  return `Story ${reply}: ${words.join(" ")}.`;
}

/**
 * The signed-in user. This example has no sign-in: the user comes as `?user=` (a real app reads its session).
 * Each chat belongs to the user who started it; the sidebar lists that user's chats.
 */
export function userOf(request) {
  return new URL(request.url).searchParams.get("user") || "guest";
}

/** A chat's title: the start of its first question, as a sidebar shows it. */
function titleOf(message) {
  const text = message.parts
    .map((part) => (part.type === "text" ? part.text : ""))
    .join(" ")
    .trim();
  return (text.length > 60 ? `${text.slice(0, 59)}…` : text) || "New chat";
}

/** The chat's thread if `user` may see it; another user's chat reads as missing. */
export async function userChat(store, id, user) {
  return ownChat(await store.get(id), user);
}

function ownChat(thread, user) {
  const owner = thread.toJSON().owner;
  if (owner !== undefined && owner !== user) throw new ThreadNotFoundError(thread.id);
  return thread;
}

/**
 * `POST ?user= { id, message }`: the chat's thread is the store's thread `id`, made on the first message with
 * the user as its owner and the question as its title. The client sends only its newest message; the thread
 * holds the rest. Where the thread holds that message already, the chat is what comes before it and then the
 * message: an edited question (`sendMessage({ text, messageId })` keeps the id), the question a `regenerate()`
 * answers again, an answer re-sent with a tool approval. `saveChat` keeps what the edit or the regeneration
 * replaced as a version (`loadChat`'s `metadata.skein`, `switchBranch`).
 */
export async function handleChat(request, { store, model, leaseMs }) {
  const user = userOf(request);
  const { id, message } = await request.json();
  const thread = ownChat(
    await store.get(id).catch((error) => {
      if (ThreadNotFoundError.isInstance(error))
        return store.create({ id, owner: user, title: titleOf(message) });
      throw error;
    }),
    user,
  );
  const stored = await loadChat(thread);
  const held = stored.findIndex((storedMessage) => storedMessage.id === message.id);
  const messages = await validateUIMessages({
    messages: [...(held < 0 ? stored : stored.slice(0, held)), message],
    tools,
  });
  const result = streamText({
    model,
    messages: await convertToModelMessages(messages, { tools }),
    tools,
    stopWhen: stepCountIs(5),
  });
  // The reply streams into the thread as it is made: another tab follows it (`handleResume`), and a server that
  // dies mid-reply leaves it `interrupted` with every delta written (once its lease, `leaseMs`, lapses).
  return result.toUIMessageStreamResponse(
    await persistChat({ thread, messages, ...(leaseMs === undefined ? {} : { leaseMs }) }),
  );
}

/**
 * `GET /api/chat/<id>/stream?user=`: what `useChat({ resume: true })` asks for when a page opens a chat: the reply
 * streaming into it (from whichever process writes it), replayed from its start and followed live; 204 when
 * none streams. The page loaded the chat with `loadChat`, which leaves a streaming reply out.
 */
export async function handleResume(request, { store }) {
  const chatId = decodeURIComponent(new URL(request.url).pathname.split("/").at(-2) ?? "");
  try {
    await userChat(store, chatId, userOf(request));
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return new Response(null, { status: 204 });
    throw error;
  }
  return resumeChat({ store, chatId, signal: request.signal });
}

/** `GET ?user=&id=`: the chat as UI messages, for a page that opens it again. */
export async function handleLoad(request, { store }) {
  const address = new URL(request.url);
  return Response.json(
    await loadChat(await userChat(store, address.searchParams.get("id") ?? "", userOf(request))),
  );
}

/** `GET ?user=&cursor=`: the sidebar, the user's chats most recently changed first, with their titles. */
export async function handleList(request, { store }) {
  const cursor = new URL(request.url).searchParams.get("cursor");
  return Response.json(await listChats({ store, owner: userOf(request), ...(cursor ? { cursor } : {}) }));
}

/**
 * `POST ?user= { id, messageId, to }`: shows version `to` (an index from `metadata.skein`, or an id) of a message
 * and returns the chat on that branch. The branch left stays a version, so the picker walks back and forth.
 */
export async function handleSwitch(request, { store }) {
  const { id, messageId, to } = await request.json();
  await userChat(store, id, userOf(request));
  return Response.json(await switchBranch({ store, chatId: id, messageId, to }));
}

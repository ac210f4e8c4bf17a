import { type Message, ThreadNotFoundError, type ThreadStore } from "@skein/thread-core";
import { createUIMessageStreamResponse, type UIMessageChunk } from "ai";
import { assertOptions, describeValue } from "./chat-arguments.js";
import { ContentChunks } from "./content-chunks.js";
import { ChatArgumentError } from "./errors.js";
import { messageExtra } from "./namespace.js";
import { assertStreamingThread, type StreamingThread } from "./streaming-thread.js";

/** Options of `resumeChat`: the store and the chat whose streaming reply to give. */
export interface ResumeChatOptions {
  store: Pick<ThreadStore, "get">;
  chatId: string;
  /** Stops following (the request's signal); the response then ends. @default the client going away ends it */
  signal?: AbortSignal;
}

/**
 * The response `useChat({ resume: true })` asks for (`GET {api}/{chatId}/stream`): the chat's reply while it
 * streams, from any process, as a UI message stream: from its first delta (the client's page loaded the chat
 * without it, `loadChat`), then live until it ends. A reply that ended `interrupted` (its writer died) ends the
 * stream with an `abort` chunk. 204 when no reply streams, or there is no such chat yet.
 * @example export const GET = (request, { params }) => resumeChat({ store, chatId: params.id, signal: request.signal })
 */
export async function resumeChat(options: ResumeChatOptions): Promise<Response> {
  assertOptions("resumeChat", options);
  const { store, chatId, signal } = options;
  if (typeof store?.get !== "function") {
    throw new ChatArgumentError("resumeChat", "store", "a store (openStore(url))", describeValue(store));
  }
  if (typeof chatId !== "string" || chatId.length === 0) {
    throw new ChatArgumentError("resumeChat", "chatId", "the chat's id (a string)", describeValue(chatId));
  }
  let thread: StreamingThread;
  try {
    const found = await store.get(chatId);
    assertStreamingThread("resumeChat", found);
    thread = found;
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return new Response(null, { status: 204 });
    throw error;
  }
  const [last] = await thread.messages({ last: 1 });
  if (!last || (last as Message & { status?: string }).status !== "streaming") {
    return new Response(null, { status: 204 });
  }
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks = replyChunks(thread, last.id, stop.signal);
  const stream = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          signal?.removeEventListener("abort", onAbort);
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        signal?.removeEventListener("abort", onAbort);
        if (stop.signal.aborted) controller.close();
        else controller.error(error);
      }
    },
    async cancel(reason) {
      stop.abort(reason);
      await chunks.return(undefined);
    },
  });
  return createUIMessageStreamResponse({ stream });
}

/** The UI message stream of a streaming reply: `start`, its deltas as chunks, then how it ended. */
async function* replyChunks(
  thread: StreamingThread,
  messageId: string,
  signal: AbortSignal,
): AsyncGenerator<UIMessageChunk> {
  yield { type: "start", messageId };
  const chunks = new ContentChunks();
  let delivered = 0;
  for await (const event of thread.follow(messageId, { signal })) {
    if (event.type === "delta") {
      delivered++;
      yield* chunks.chunks(event.delta);
      continue;
    }
    yield* endChunks(chunks, event.message, delivered);
  }
}

/**
 * How the reply ended, for a client that has its deltas: an ordinary message gives its metadata and `finish`; an
 * interrupted one gives what `fail` added after the deltas (its `error` content) and `abort`. A reply that had
 * ended before it was followed (no deltas) gives its whole contents first.
 */
function* endChunks(chunks: ContentChunks, message: Message, delivered: number): Generator<UIMessageChunk> {
  const interrupted = (message as Message & { status?: string }).status === "interrupted";
  if (delivered === 0) {
    for (const content of message.contents) yield* chunks.chunks(content);
  } else if (interrupted) {
    const last = message.contents.at(-1);
    if (last?.type === "error") yield* chunks.chunks(last);
  }
  yield* chunks.finish();
  if (interrupted) {
    yield { type: "abort", reason: "interrupted" } as UIMessageChunk;
    return;
  }
  const metadata = messageExtra(message)?.metadata;
  if (metadata !== undefined) yield { type: "message-metadata", messageMetadata: metadata };
  yield { type: "finish" };
}

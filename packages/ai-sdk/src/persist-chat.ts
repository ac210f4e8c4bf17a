import type { Thread } from "@skein/thread-core";
import { newSortableId } from "@skein/thread-core/driver";
import type { UIMessage, UIMessageStreamOptions } from "ai";
import { loadChat, saveChat } from "./chat.js";
import { assertThread, assertUIMessages, describeValue, readIfRevision } from "./chat-arguments.js";
import { ChatArgumentError } from "./errors.js";
import { isRecord } from "./namespace.js";
import { ReplyRecorder, type ReplySettings } from "./reply-recorder.js";
import { assertStreamingThread } from "./streaming-thread.js";

/** Options of `persistChat`: the thread, the messages the UI sent and the revision to check. */
export interface PersistChatOptions<Message extends UIMessage = UIMessage> extends ReplySettings {
  /** The thread that keeps the chat: a store's own thread (memory, file, redis, postgres), which replies stream into. */
  thread: Thread;
  /** The messages the client sent (the request's `messages`). @default the chat the thread holds */
  messages?: Message[];
  /** Save only if the thread is still at this revision (`ConcurrencyError` from persistChat otherwise). */
  ifRevision?: number;
}

/** The options `persistChat` gives `toUIMessageStreamResponse` / `createUIMessageStreamResponse`. */
export type PersistChatStreamOptions<Message extends UIMessage = UIMessage> = Required<
  Pick<UIMessageStreamOptions<Message>, "originalMessages" | "generateMessageId" | "onFinish">
> & {
  /** Reads a copy of the response's SSE stream and writes the reply into the thread as it streams. */
  consumeSseStream: (options: { stream: ReadableStream<string> }) => Promise<void>;
};

/**
 * The options for `result.toUIMessageStreamResponse(…)` that keep the chat in `thread`: the client's new
 * messages are saved at once, the reply streams into the thread as it is made (`thread.beginMessage`: another
 * process follows it with `resumeChat`, and a process that dies leaves it `interrupted` with every flushed
 * delta), and `onFinish` ends it as the SDK assembled it; an aborted or failed stream ends it `interrupted`.
 * A continuation (the client's last message is the assistant message the stream adds to) and a regeneration
 * (the thread holds an answer after the client's last message) are saved whole in `onFinish`. Its arguments are checked, and the client's messages saved, before any reply streams.
 * @example return result.toUIMessageStreamResponse(await persistChat({ thread, messages }))
 */
export async function persistChat<Message extends UIMessage = UIMessage>(
  options: PersistChatOptions<Message>,
): Promise<PersistChatStreamOptions<Message>> {
  if (!isRecord(options)) {
    throw new ChatArgumentError("persistChat", "its options", "{ thread, messages }", describeValue(options));
  }
  const { thread } = options;
  assertThread("persistChat", thread);
  assertStreamingThread("persistChat", thread);
  if (options.messages !== undefined) assertUIMessages("persistChat", "messages", options.messages);
  let ifRevision = readIfRevision("persistChat", options.ifRevision);
  const originalMessages = options.messages ?? ((await loadChat(thread)) as Message[]);
  let live = originalMessages.at(-1)?.role !== "assistant";
  if (live && options.messages !== undefined) {
    // The question is in the thread before its answer streams: a crash mid-reply keeps both.
    const saved = await saveChat(thread, originalMessages, { ifRevision });
    if (ifRevision !== undefined) ifRevision = saved.revision;
  }
  if (live) {
    // A regeneration: the thread holds an answer after the client's last message, which the new answer
    // replaces (kept as a version) in onFinish; a streamed reply could only come after it.
    const [last] = await thread.messages({ last: 1 });
    const held = last !== undefined && (last as { status?: string }).status !== "streaming";
    live = !held || last.id === originalMessages.at(-1)?.id;
  }
  const recorder = live ? new ReplyRecorder(thread, replySettings(options)) : undefined;
  return {
    originalMessages,
    generateMessageId: () => newSortableId(),
    consumeSseStream: async ({ stream }) => {
      if (recorder) await recorder.consume(stream);
      // Not streamed live: the copy is let go (the client's own stream goes on).
      else await stream.cancel();
    },
    onFinish: async ({ messages, responseMessage, isContinuation, isAborted, outcome }) => {
      const stopped = isAborted || outcome.status === "failed";
      if (recorder && !isContinuation) {
        const failure = stopped ? failureOf(outcome) : undefined;
        if (await recorder.finish(stopped ? receivedParts(responseMessage) : responseMessage, failure))
          return;
      }
      // Not streamed into the thread (a continuation, a regeneration, or a stream that ended before its copy was read).
      const completed = stopped ? completedParts(responseMessage) : responseMessage;
      const before = messages.slice(0, -1);
      const keep = completed.parts.some((part) => part.type !== "step-start") || isContinuation;
      await saveChat(thread, keep ? [...before, completed] : before, { ifRevision });
    },
  };
}

function replySettings(options: ReplySettings): ReplySettings {
  return {
    ...(options.flushMs === undefined ? {} : { flushMs: options.flushMs }),
    ...(options.maxBatchBytes === undefined ? {} : { maxBatchBytes: options.maxBatchBytes }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  };
}

/** Why a stream stopped, as `fail` records it in the reply's `error` content. */
function failureOf(outcome: { status: string; error?: unknown }): unknown {
  if (outcome.status === "failed") return outcome.error ?? new Error("the stream failed");
  return new Error("the stream was aborted");
}

/** The message without the parts a stopped stream left unfinished: text still streaming, tool input still arriving. */
function completedParts<Message extends UIMessage>(message: Message): Message {
  const parts = message.parts.filter((part) => {
    if ((part.type === "text" || part.type === "reasoning") && part.state === "streaming") return false;
    return !("toolCallId" in part && part.state === "input-streaming");
  });
  return { ...message, parts };
}

/**
 * What a stopped stream had sent, kept: text and reasoning cut mid-way as they were received (`done`: nothing
 * more comes), a tool input still arriving left out (it is not a call a model could be sent).
 */
function receivedParts<Message extends UIMessage>(message: Message): Message {
  const parts = message.parts.flatMap((part) => {
    if ((part.type === "text" || part.type === "reasoning") && part.state === "streaming") {
      return [{ ...part, state: "done" as const }];
    }
    return "toolCallId" in part && part.state === "input-streaming" ? [] : [part];
  });
  return { ...message, parts };
}

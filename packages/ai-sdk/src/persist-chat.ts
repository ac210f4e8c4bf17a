import type { Thread } from "@skein/thread-core";
import { newSortableId } from "@skein/thread-core/driver";
import type { UIMessage, UIMessageStreamOptions } from "ai";
import { loadChat, saveChat } from "./chat.js";
import { assertThread, assertUIMessages, describeValue, readIfRevision } from "./chat-arguments.js";
import { ChatArgumentError } from "./errors.js";
import { isRecord } from "./namespace.js";

/** Options of `persistChat`: the thread, the messages the UI sent and the revision to check. */
export interface PersistChatOptions<Message extends UIMessage = UIMessage> {
  /** The thread that keeps the chat. */
  thread: Thread;
  /** The messages the client sent (the request's `messages`). @default the chat the thread holds */
  messages?: Message[];
  /** Save only if the thread is still at this revision (`ConcurrencyError` in `onFinish` otherwise). */
  ifRevision?: number;
}

/** The options `persistChat` gives `toUIMessageStreamResponse` / `createUIMessageStream`. */
export type PersistChatStreamOptions<Message extends UIMessage = UIMessage> = Required<
  Pick<UIMessageStreamOptions<Message>, "originalMessages" | "generateMessageId" | "onFinish">
>;

/**
 * The options for `result.toUIMessageStreamResponse(…)` that keep the chat in `thread`: the client's messages as
 * `originalMessages`, skein's sortable ids for new messages, and an `onFinish` that saves the chat with
 * `saveChat`. A stream that was aborted or failed saves what completed: parts still streaming are left out.
 * Its arguments are checked here, before any reply streams, so a missing thread cannot lose the chat in `onFinish`.
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
  if (options.messages !== undefined) assertUIMessages("persistChat", "messages", options.messages);
  const ifRevision = readIfRevision("persistChat", options.ifRevision);
  const originalMessages = options.messages ?? ((await loadChat(thread)) as Message[]);
  return {
    originalMessages,
    generateMessageId: () => newSortableId(),
    onFinish: async ({ messages, responseMessage, isContinuation, isAborted, outcome }) => {
      const completed =
        isAborted || outcome.status === "failed" ? completedParts(responseMessage) : responseMessage;
      const before = messages.slice(0, -1);
      const keep = completed.parts.some((part) => part.type !== "step-start") || isContinuation;
      await saveChat(thread, keep ? [...before, completed] : before, { ifRevision });
    },
  };
}

/** The message without the parts a stopped stream left unfinished: text still streaming, tool input still arriving. */
function completedParts<Message extends UIMessage>(message: Message): Message {
  const parts = message.parts.filter((part) => {
    if ((part.type === "text" || part.type === "reasoning") && part.state === "streaming") return false;
    return !("toolCallId" in part && part.state === "input-streaming");
  });
  return { ...message, parts };
}

import type { Message } from "@skein/thread-core";
import type { UIMessage } from "ai";
import { contentsToUIParts } from "./contents-to-ui-parts.js";
import { messageExtra } from "./namespace.js";

/** One UI message and the skein messages it was read from: `first` (its id) to `last`. */
export interface UIMessageGroup {
  message: UIMessage;
  first: string;
  last: string;
}

/**
 * Skein messages as AI SDK UI messages. Messages `fromUIMessages` wrote come back as they were; any other
 * writer's are read by their contents, and a `tool` message (a runner's, the OpenAI Agents bridge's) folds into
 * the assistant UI message before it, its results completing that message's tool parts.
 * @example const messages = toUIMessages(await thread.messages())
 */
export function toUIMessages(messages: readonly Message[]): UIMessage[] {
  return groupUIMessages(messages).map((group) => group.message);
}

/** `toUIMessages`, saying which skein messages make each UI message. */
export function groupUIMessages(messages: readonly Message[]): UIMessageGroup[] {
  const groups: UIMessageGroup[] = [];
  let calls = new Map<string, UIMessage["parts"][number] & { state: string }>();
  for (const message of messages) {
    const extra = messageExtra(message);
    const previous = groups[groups.length - 1];
    if (message.role === "tool" && extra?.from !== "ui" && previous?.message.role === "assistant") {
      previous.message.parts.push(...contentsToUIParts(message.contents, calls));
      previous.last = message.id;
      continue;
    }
    calls = new Map();
    const uiMessage: UIMessage = {
      id: message.id,
      role: message.role === "tool" ? "assistant" : message.role,
      parts: contentsToUIParts(message.contents, calls),
    };
    if (extra?.from === "ui" && extra.metadata !== undefined) uiMessage.metadata = extra.metadata;
    groups.push({ message: uiMessage, first: message.id, last: message.id });
  }
  return groups;
}

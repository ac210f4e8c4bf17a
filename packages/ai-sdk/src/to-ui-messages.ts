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
 * writer's are read by their contents, the way the SDK holds a turn: an assistant turn that a runner or the OpenAI
 * Agents bridge wrote as several messages (calls, `tool` messages with their results, the answer) is one
 * assistant UI message, a `step-start` part between its model steps, each result completing its call's tool part.
 * A `tool` message after an assistant message `fromUIMessages` wrote (a client-side tool's result) folds into it.
 * @example const messages = toUIMessages(await thread.messages())
 */
export function toUIMessages(messages: readonly Message[]): UIMessage[] {
  return groupUIMessages(messages).map((group) => group.message);
}

/** `toUIMessages`, saying which skein messages make each UI message (always a run of consecutive ones). */
export function groupUIMessages(messages: readonly Message[]): UIMessageGroup[] {
  const groups: UIMessageGroup[] = [];
  let calls = new Map<string, UIMessage["parts"][number] & { state: string }>();
  // Whether the last UI message is an assistant turn other writers made, which their next messages continue.
  let otherTurn = false;
  for (const message of messages) {
    const extra = messageExtra(message);
    const fromUI = extra?.from === "ui";
    const previous = groups[groups.length - 1];
    const joins =
      !fromUI &&
      previous?.message.role === "assistant" &&
      (message.role === "tool" || (message.role === "assistant" && otherTurn));
    if (previous && joins) {
      // A new model step: the SDK's convertToModelMessages sends each step's calls before their results.
      if (message.role === "assistant") previous.message.parts.push({ type: "step-start" });
      previous.message.parts.push(...contentsToUIParts(message.contents, calls));
      previous.last = message.id;
      continue;
    }
    calls = new Map();
    otherTurn = !fromUI && (message.role === "assistant" || message.role === "tool");
    const uiMessage: UIMessage = {
      id: message.id,
      role: message.role === "tool" ? "assistant" : message.role,
      parts: contentsToUIParts(message.contents, calls),
    };
    if (fromUI && extra.metadata !== undefined) uiMessage.metadata = extra.metadata;
    groups.push({ message: uiMessage, first: message.id, last: message.id });
  }
  return groups;
}

import { type SendMessageResult, Message as WireMessage, Task as WireTask } from "@a2a-js/sdk";
import type { Message } from "@skein/thread-core";
import type { MessageJson, TaskJson } from "./a2a-json.js";
import type { ConversationLink, TurnTarget } from "./agent-turn.js";
import { fromA2aMessage, taskMessages } from "./message-mapping.js";
import { taskStateName } from "./task-state.js";

/** Where the conversation stands after a turn, and what of it only the client can remember. */
export interface TurnOutcome extends ConversationLink {
  /**
   * Messages the agent keeps no record of: a plain-message reply (and the user message it answered, when
   * no task held that message). A2A cannot read them back, so the thread keeps them.
   */
  unrecorded: Message[];
}

export interface TurnReply {
  outcome: TurnOutcome;
  /** The user message as the agent stored it. */
  stored: Message;
  /** The agent's reply: the task's messages after the user message, or its plain-message answer. */
  reply: Message[];
}

/** Reads the result of a blocking send: a task (its messages after ours) or a plain message. */
export function turnReply(
  result: SendMessageResult,
  sent: Message,
  target: TurnTarget,
  link: ConversationLink,
): TurnReply {
  if ("messageId" in result) {
    const answer = plainReply(WireMessage.toJSON(result) as MessageJson, sent);
    return {
      outcome: plainOutcome(
        link,
        target,
        answer.contextId,
        target.taskId ? [answer.reply] : [sent, answer.reply],
      ),
      stored: sent,
      reply: [answer.reply],
    };
  }
  const task = WireTask.toJSON(result) as TaskJson;
  const messages = taskMessages(task);
  const index = messages.findIndex((message) => message.id === sent.id);
  // A history the agent shortened may lack our message: then the reply is what follows the last user message.
  const from = index >= 0 ? index + 1 : lastUserIndex(messages) + 1;
  return {
    outcome: {
      contextId: task.contextId || target.contextId,
      ...(task.id ? { taskId: task.id } : {}),
      taskState: taskStateName(task.status?.state),
      unrecorded: [],
    },
    stored: index >= 0 ? (messages[index] as Message) : sent,
    reply: messages.slice(from),
  };
}

/** An agent's plain-message answer to `sent`, timed now since A2A messages carry no time. */
export function plainReply(json: MessageJson, sent: Message): { contextId?: string; reply: Message } {
  const reply = fromA2aMessage(json, {
    fallbackId: `${sent.id}:reply`,
    fallbackCreatedAt: new Date().toISOString(),
  });
  return { ...(json.contextId ? { contextId: json.contextId } : {}), reply };
}

/** A plain-message answer leaves the task (if any) as it was. */
export function plainOutcome(
  link: ConversationLink,
  target: TurnTarget,
  contextId: string | undefined,
  unrecorded: Message[],
): TurnOutcome {
  return {
    contextId: contextId || target.contextId,
    ...(link.taskId ? { taskId: link.taskId } : {}),
    ...(link.taskState ? { taskState: link.taskState } : {}),
    unrecorded,
  };
}

function lastUserIndex(messages: Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === "user") return index;
  }
  return -1;
}

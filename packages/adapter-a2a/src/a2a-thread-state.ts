import { type Message, type ThreadState, ThreadStateSchema } from "@skein/thread-core";
import { MessageListSchema, z } from "@skein/thread-core/driver";
import { A2A_TASK_STATES, type A2aTaskState } from "./task-state.js";
import type { TurnOutcome } from "./turn-outcome.js";

/**
 * One part of the context's conversation, in order: a task (read back from the agent), or messages the
 * agent keeps no record of (a plain-message answer), kept here because A2A cannot return them.
 */
export const ConversationEntrySchema = z.union([
  z.looseObject({ taskId: z.string().min(1) }),
  z.looseObject({ messages: MessageListSchema }),
]);

/** One entry of an `a2a` thread's conversation: a task of the agent, or messages sent outside a task. */
export type ConversationEntry = { taskId: string } | { messages: Message[] };

/** The `a2a` state: which agent, which context, the current task, and the context's tasks in order. */
export const A2aThreadStateSchema = ThreadStateSchema.extend({
  $type: z.literal("a2a"),
  /** Where the agent card is served (`<agentUrl>/.well-known/agent-card.json`), or the card's own URL. */
  agentUrl: z.url({ protocol: /^https?$/ }),
  contextId: z.string().min(1),
  /** The task the next message continues while it is not terminal. */
  taskId: z.string().min(1).optional(),
  taskState: z.enum(A2A_TASK_STATES).optional(),
  /** Absent in a hand-written state: then the conversation is the current task alone. */
  conversation: z.array(ConversationEntrySchema).optional(),
  /** Grows with each change saved to a store. */
  revision: z.number().int().nonnegative().optional(),
});

/** The JSON of an `a2a` thread: the agent it talks to and the conversation's tasks and messages. */
export interface A2aThreadState extends ThreadState {
  $type: "a2a";
  agentUrl: string;
  contextId: string;
  taskId?: string;
  taskState?: A2aTaskState;
  conversation?: ConversationEntry[];
  revision?: number;
}

/** The conversation's entries, reading a state without `conversation` as its current task alone. */
export function conversationOf(state: A2aThreadState): ConversationEntry[] {
  return state.conversation ?? (state.taskId ? [{ taskId: state.taskId }] : []);
}

/**
 * The state after a turn: the task joins the conversation the first time it is seen, messages the agent
 * did not record are kept, and the current task is the turn's. Applied again to a fresher state when
 * another writer saved first, so concurrent turns both land.
 */
export function recordTurn(state: A2aThreadState, outcome: TurnOutcome): A2aThreadState {
  const conversation = [...conversationOf(state)];
  const { taskId, taskState } = outcome;
  if (taskId && !conversation.some((entry) => "taskId" in entry && entry.taskId === taskId)) {
    conversation.push({ taskId });
  }
  if (outcome.unrecorded.length > 0) conversation.push({ messages: outcome.unrecorded });
  const { taskId: _taskId, taskState: _taskState, ...rest } = state;
  return {
    ...rest,
    contextId: outcome.contextId,
    ...(taskId ? { taskId } : {}),
    ...(taskId && taskState ? { taskState } : {}),
    conversation,
  };
}

import type { Message, Thread } from "@skein/thread-core";
import { CONVERSATION_TYPE } from "./conversation-state.js";
import { RESPONSES_TYPE } from "./responses-state.js";

/** What a run sends for a thread. */
export type RunTarget =
  | { kind: "conversation"; conversationId: string }
  | { kind: "responses"; previousResponseId: string | null; pending: Message[]; revision: number }
  /** Any other thread: the model gets its view and the output is appended. */
  | { kind: "local" };

/**
 * How to run `target`, the thread a run acts on (thread-core's `runTarget`: through wrappers, a workflow's
 * main sub-thread). Only an `openai.*` thread's own small state is read; a local thread is never serialised
 * (a memory thread's JSON is its whole log).
 */
export function runTargetOf(target: Thread): RunTarget {
  if (target.type === CONVERSATION_TYPE) {
    return { kind: "conversation", conversationId: target.toJSON().conversationId as string };
  }
  if (target.type !== RESPONSES_TYPE) return { kind: "local" };
  const state = target.toJSON();
  return {
    kind: "responses",
    previousResponseId: (state.previousResponseId as string | null) ?? null,
    pending: (state.pending as Message[]) ?? [],
    revision: state.revision as number,
  };
}

import type { Message, Thread, ThreadState } from "@skein/thread-core";
import { CONVERSATION_TYPE } from "./conversation-state.js";
import { RESPONSES_TYPE } from "./responses-state.js";

/** What a run sends for a thread, read from its state so that wrappers (a runtime's run guard) work too. */
export type RunTarget =
  | { kind: "conversation"; conversationId: string }
  | { kind: "responses"; previousResponseId: string | null; pending: Message[]; revision: number }
  /** Any other thread: the model gets its view and the output is appended. */
  | { kind: "local" };

const REMOTE_TYPES = new Set([CONVERSATION_TYPE, RESPONSES_TYPE, "workflow"]);

/** How to run `thread`; a workflow runs as its main sub-thread, which its append and view stand for. */
export function runTargetOf(thread: Thread): RunTarget {
  // Local threads are never serialized here: a memory thread's JSON is its whole log.
  if (!REMOTE_TYPES.has(thread.type)) return { kind: "local" };
  return targetOfState(thread.toJSON());
}

function targetOfState(state: ThreadState): RunTarget {
  if (state.$type === CONVERSATION_TYPE) {
    return { kind: "conversation", conversationId: state.conversationId as string };
  }
  if (state.$type === RESPONSES_TYPE) {
    return {
      kind: "responses",
      previousResponseId: (state.previousResponseId as string | null) ?? null,
      pending: (state.pending as Message[]) ?? [],
      revision: state.revision as number,
    };
  }
  const main = (state.threads as Record<string, ThreadState> | undefined)?.main;
  return state.$type === "workflow" && main ? targetOfState(main) : { kind: "local" };
}

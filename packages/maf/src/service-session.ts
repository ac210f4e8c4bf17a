import { UnsupportedOperationError } from "@skein/thread-core";
import { SOURCE } from "./errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json-value.js";

/**
 * A2A task states by the protobuf enum number MAF Python keeps in `A2AServiceSessionId.task_state`
 * (a2a.proto `TaskState`), named as skein's `a2a` state names them.
 */
const A2A_TASK_STATES: readonly string[] = [
  "unspecified",
  "submitted",
  "working",
  "completed",
  "failed",
  "canceled",
  "input-required",
  "rejected",
  "auth-required",
];

/** The thread parts every state is built from. */
export interface ThreadBase {
  id: string;
  createdAt: string;
  metadata: JsonObject;
  context: JsonObject;
}

/** What a service session id can become without a network call. */
export interface ServiceSessionOptions {
  /** The A2A agent an A2A `service_session_id` belongs to (MAF does not record it). */
  a2aAgentUrl?: string;
}

/**
 * The skein remote thread state a MAF service session id stands for, as plain JSON the adapter's own parser
 * reads: `resp_…` → `openai.responses`, `conv_…` → `openai.conversation`, an A2A `{ context_id, task_id,
 * task_state }` → `a2a` (given `a2aAgentUrl`). Undefined for any other id: the caller keeps it in metadata.
 */
export function remoteThreadState(
  serviceSessionId: Json,
  base: ThreadBase,
  options: ServiceSessionOptions,
): JsonObject | undefined {
  if (typeof serviceSessionId === "string" && serviceSessionId.startsWith("resp_"))
    // The chain's item count is not in the session; 0 counts positions from the import (see README).
    return {
      $type: "openai.responses",
      $v: 1,
      ...base,
      revision: 1,
      previousResponseId: serviceSessionId,
      length: 0,
      pending: [],
      checkpoints: [],
      events: [],
    };
  if (typeof serviceSessionId === "string" && serviceSessionId.startsWith("conv_"))
    return { $type: "openai.conversation", $v: 1, ...base, conversationId: serviceSessionId };
  if (isJsonObject(serviceSessionId) && options.a2aAgentUrl !== undefined) {
    const { context_id: contextId, task_id: taskId, task_state: taskState } = serviceSessionId;
    if (typeof contextId !== "string" || contextId === "") return undefined;
    const stateName =
      typeof taskState === "number" ? A2A_TASK_STATES[taskState] : taskState == null ? undefined : null;
    if (stateName === null) return undefined;
    const hasTask = typeof taskId === "string" && taskId !== "";
    return {
      $type: "a2a",
      $v: 1,
      ...base,
      agentUrl: options.a2aAgentUrl,
      contextId,
      ...(hasTask ? { taskId } : {}),
      ...(hasTask && stateName !== undefined ? { taskState: stateName } : {}),
      conversation: hasTask ? [{ taskId }] : [],
    };
  }
  return undefined;
}

/** The skein types a MAF session can stand for. */
export const REMOTE_TYPES: ReadonlySet<string> = new Set(["openai.responses", "openai.conversation", "a2a"]);

/** The MAF service session id of a remote skein state: Python's `service_session_id`, or .NET's `conversationId`. */
export function serviceSessionIdOf(state: JsonObject, language: "python" | "dotnet"): Json {
  refuseUnsent(state);
  if (state.$type === "openai.responses") return (state.previousResponseId as Json) ?? null;
  if (state.$type === "openai.conversation") return state.conversationId as Json;
  if (language === "dotnet")
    throw new UnsupportedOperationError(
      "a2a",
      "export as a MAF .NET ChatClientAgentSession",
      "MAF .NET keeps A2A context and task ids in A2AAgentSession, not in a ChatClientAgentSession; export it for MAF Python instead",
      { source: SOURCE },
    );
  const stateIndex = A2A_TASK_STATES.indexOf(state.taskState as string);
  return {
    context_id: state.contextId as Json,
    task_id: (state.taskId as Json) ?? null,
    task_state: stateIndex < 0 ? null : stateIndex,
  };
}

/**
 * A MAF session names only the service's conversation: messages skein holds beside it (an `openai.responses`
 * thread's input not yet sent, an `a2a` thread's messages the agent kept no record of) would be lost, so such a
 * thread is refused rather than written without them.
 */
function refuseUnsent(state: JsonObject): void {
  const type = state.$type as string;
  const unsent =
    type === "openai.responses"
      ? Array.isArray(state.pending) && state.pending.length > 0
      : type === "a2a" && Array.isArray(state.conversation)
        ? state.conversation.some((entry) => isJsonObject(entry) && "messages" in entry)
        : false;
  if (unsent)
    throw new UnsupportedOperationError(
      type,
      "export as a MAF session while it holds messages the service does not",
      type === "openai.responses"
        ? "run the thread first, so that its pending input is sent"
        : "its conversation holds messages the agent kept no record of, which a MAF session cannot carry",
      { source: SOURCE },
    );
}

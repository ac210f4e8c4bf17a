import type { RunConfig } from "@skein/thread-core";
import { FoundryRunError } from "../errors.js";
import type { ConversationItem } from "./conversation-items.js";

/** The agent a response runs: `{ type: "agent_reference", name, version? }` in the request body. */
export interface AgentReference {
  type: "agent_reference";
  name: string;
  version?: string;
}

/** The fields of a response this adapter reads. */
export interface ResponseRecord {
  id: string;
  status?: string;
  output?: ConversationItem[];
  error?: { code?: string; message?: string } | null;
  incomplete_details?: { reason?: string } | null;
}

export interface AgentChoice {
  agentName: string;
  agentVersion?: string | undefined;
}

/**
 * The agent to run: the thread's, unless the runner or `config.model` (an agent name, in this runner's
 * terms) names another.
 */
export function agentReference(
  thread: AgentChoice,
  runner: Partial<AgentChoice>,
  config: RunConfig | undefined,
): AgentReference {
  const name = config?.model ?? runner.agentName ?? thread.agentName;
  const version =
    name === thread.agentName ? (runner.agentVersion ?? thread.agentVersion) : runner.agentVersion;
  return { type: "agent_reference", name, ...(version === undefined ? {} : { version }) };
}

/** Throws `FoundryRunError` unless the response completed. */
export function assertResponseCompleted(threadId: string, response: ResponseRecord): void {
  const status = response.status ?? "completed";
  if (status === "completed") return;
  const ending = status === "cancelled" || status === "incomplete" ? status : "failed";
  const code = response.error?.code ?? response.incomplete_details?.reason;
  const detail =
    response.error?.message ??
    (response.incomplete_details?.reason
      ? `stopped early (${response.incomplete_details.reason})`
      : `status ${status}`);
  throw new FoundryRunError(threadId, response.id, ending, code, detail);
}
